package cluster_test

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// Pods as an API server serves them (defaults, a token volume of their own,
// managedFields, container statuses) decode, less what trimming drops, to
// what they decode to whole and trimmed, in fewer bytes.
func TestAppendTrimmedPodDecodesAsTrimmed(t *testing.T) {
	_, _, served, _ := servedPods(t, 2000)
	var whole, trimmed int
	var out []byte
	for i, data := range served {
		var ok bool
		if out, ok = cluster.AppendTrimmedPod(out[:0], data); !ok {
			t.Fatalf("pod %d: AppendTrimmedPod() cannot read it", i)
		}
		var want, got corev1.Pod
		if err := want.Unmarshal(data); err != nil {
			t.Fatal(err)
		}
		if err := got.Unmarshal(out); err != nil {
			t.Fatalf("pod %d: its bytes less what trimming drops do not decode: %v", i, err)
		}
		if dropped := droppedByTrim(&got); dropped != "" {
			t.Fatalf("pod %d (%s) decoded less what trimming drops holds %s", i, got.Name, dropped)
		}
		want.ManagedFields = nil
		cluster.Trim(&want)
		cluster.Trim(&got)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("pod %d (%s) decoded less what trimming drops differs from the pod decoded whole and trimmed", i, want.Name)
		}
		whole, trimmed = whole+len(data), trimmed+len(out)
	}
	if trimmed*2 > whole {
		t.Errorf("%d pods: %d bytes less what trimming drops, of %d; want at most half", len(served), trimmed, whole)
	}
}

func TestAppendTrimmedPodRefusesWhatItCannotRead(t *testing.T) {
	var p corev1.Pod
	p.Name = "web-1"
	data, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	prefix := []byte("kept")
	for _, bad := range [][]byte{data[:len(data)-1], {0x12, 0x05, 0x0a}} {
		out, ok := cluster.AppendTrimmedPod(prefix, bad)
		if ok || string(out) != "kept" {
			t.Errorf("AppendTrimmedPod(%q) = %q, %v; want what was there and false", bad, out, ok)
		}
	}
}

// droppedByTrim names what a pod holds of what AppendTrimmedPod leaves out.
func droppedByTrim(p *corev1.Pod) string {
	if p.ManagedFields != nil {
		return "managedFields"
	}
	for _, v := range p.Spec.Volumes {
		if v.Projected != nil || v.ConfigMap != nil || v.Secret != nil || v.DownwardAPI != nil {
			return "volume " + v.Name
		}
	}
	for _, c := range append(p.Spec.InitContainers, p.Spec.Containers...) {
		if c.Env != nil || c.VolumeMounts != nil || c.LivenessProbe != nil || c.ReadinessProbe != nil {
			return "container " + c.Name + "'s environment, mounts or probes"
		}
	}
	return ""
}
