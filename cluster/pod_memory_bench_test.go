package cluster_test

import (
	"bytes"
	"encoding/json"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/synthetic"
)

// BenchmarkPodMemory reports what a pod costs the heap once read: pods as
// an API server serves them (defaults, service account volume, container
// statuses, managedFields), read as `run` reads them (protobuf pages, each
// pod decoded without what trimming drops and shared as each page arrives) and as
// `plan --snapshot` reads a JSON dump; started=together are the same pods
// started as in a cluster filled at once. objects-B/pod is what the decoded
// objects retain after a garbage collection, snapshot-B/pod that and what
// cluster.New adds.
//
//	go test ./cluster -run '^$' -bench PodMemory -benchmem
func BenchmarkPodMemory(b *testing.B) {
	objs, dump, served, filled := servedPods(b, 10000)
	rest := objs
	rest.Pods = nil

	b.Run("read=protobuf", func(b *testing.B) {
		measurePods(b, len(served), func() cluster.Objects {
			o := rest
			o.Pods = readPodPages(b, served)
			return o
		})
	})
	b.Run("read=protobuf/started=together", func(b *testing.B) {
		measurePods(b, len(filled), func() cluster.Objects {
			o := rest
			o.Pods = readPodPages(b, filled)
			return o
		})
	})
	b.Run("read=json-dump", func(b *testing.B) {
		measurePods(b, len(objs.Pods), func() cluster.Objects {
			o, _, err := cluster.Decode(bytes.NewReader(dump))
			if err != nil {
				b.Fatal(err)
			}
			return o
		})
	})
}

// servedPods generates a cluster of 300 nodes and the pods and returns
// it, its JSON dump with what an API server adds, and each pod's protobuf
// encoding as an API server serves it: as generated, and started as in a
// cluster filled at once.
func servedPods(b testing.TB, pods int) (objs cluster.Objects, dump []byte, served, filled [][]byte) {
	objs = synthetic.Generate(synthetic.Spec{Seed: 1, Nodes: 300, Pods: pods})
	var buf bytes.Buffer
	if err := synthetic.WriteList(&buf, objs, synthetic.DumpOptions{Format: synthetic.JSON, Served: true, ManagedFields: true}); err != nil {
		b.Fatal(err)
	}
	dump = buf.Bytes()
	var list struct{ Items []json.RawMessage }
	if err := json.Unmarshal(dump, &list); err != nil {
		b.Fatal(err)
	}
	// The generated pods were created over a month, each at a minute of
	// its own; those of a cluster filled at once (make
	// bench-vs-descheduler's: 40,000 pods in about 7 minutes) went
	// through their conditions and started their containers within the
	// same few seconds as many others.
	const startedPerSecond = 90
	for _, raw := range list.Items {
		var p corev1.Pod
		if err := json.Unmarshal(raw, &p); err != nil || p.Kind != "Pod" {
			continue
		}
		served = append(served, marshalPod(b, &p))
		at := metav1.NewTime(synthetic.Spec{}.Now.Add(time.Duration(len(filled)/startedPerSecond) * time.Second))
		p.CreationTimestamp, p.Status.StartTime = at, &at
		for i := range p.Status.Conditions {
			p.Status.Conditions[i].LastTransitionTime = at
		}
		for i := range p.Status.ContainerStatuses {
			if r := p.Status.ContainerStatuses[i].State.Running; r != nil {
				r.StartedAt = at
			}
		}
		filled = append(filled, marshalPod(b, &p))
	}
	return objs, dump, served, filled
}

// BenchmarkReadPodPages is the CPU of reading pods as `run` reads them, a
// page of protobuf at a time: each pod decoded without what trimming drops
// and shared by those bytes; and, in the same run, as run read them
// before: decoded whole, trimmed, and shared by their values.
//
//	go test ./cluster -run '^$' -bench ReadPodPages -benchmem
func BenchmarkReadPodPages(b *testing.B) {
	_, _, served, _ := servedPods(b, 10000)
	for _, way := range []struct {
		name string
		read func(b *testing.B, served [][]byte) []corev1.Pod
	}{
		{"decode=trimmed/share=encoded", readPodPages},
		{"decode=whole/share=values", readWholePodPages},
	} {
		b.Run(way.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				way.read(b, served)
			}
		})
	}
}

func marshalPod(b testing.TB, p *corev1.Pod) []byte {
	data, err := p.Marshal()
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// readPodPages decodes pods as the API server's reader does: a page of 1,000
// at a time, each pod decoded from its bytes less what trimming drops,
// trimmed and shared by those bytes, then copied out of its page.
func readPodPages(b *testing.B, served [][]byte) []corev1.Pod {
	return readPages(b, served, func(s *cluster.PodSharer, buf []byte, p *corev1.Pod, data []byte) []byte {
		buf, ok := cluster.AppendTrimmedPod(buf[:0], data)
		if !ok {
			b.Fatal("AppendTrimmedPod() cannot read a pod")
		}
		if err := p.Unmarshal(buf); err != nil {
			b.Fatal(err)
		}
		cluster.Trim(p)
		s.ShareEncoded(p, buf)
		return buf
	})
}

// readWholePodPages decodes each pod whole, trims it and shares it by its
// values, as the API server's reader did before.
func readWholePodPages(b *testing.B, served [][]byte) []corev1.Pod {
	return readPages(b, served, func(s *cluster.PodSharer, buf []byte, p *corev1.Pod, data []byte) []byte {
		if err := p.Unmarshal(data); err != nil {
			b.Fatal(err)
		}
		p.SetManagedFields(nil)
		cluster.Trim(p)
		s.Share(p)
		return buf
	})
}

func readPages(b *testing.B, served [][]byte, read func(*cluster.PodSharer, []byte, *corev1.Pod, []byte) []byte) []corev1.Pod {
	b.Helper()
	const pageSize = 1000
	pods := make([]corev1.Pod, 0, len(served))
	sharer := cluster.NewPodSharer()
	var buf []byte
	for start := 0; start < len(served); start += pageSize {
		page := make([]corev1.Pod, min(pageSize, len(served)-start))
		for i := range page {
			buf = read(sharer, buf, &page[i], served[start+i])
		}
		pods = append(pods, page...)
	}
	return pods
}

// measurePods reports the heap that read's objects, and a snapshot of
// them, hold after a garbage collection, a pod.
func measurePods(b *testing.B, pods int, read func() cluster.Objects) {
	b.ReportAllocs()
	var objects, snapshot uint64
	for b.Loop() {
		before := heapAfterGC()
		objs := read()
		objects = heapAfterGC() - before
		snap, err := cluster.New(objs, synthetic.Spec{}.Now)
		if err != nil {
			b.Fatal(err)
		}
		snapshot = heapAfterGC() - before
		runtime.KeepAlive(snap)
	}
	b.ReportMetric(float64(objects)/float64(pods), "objects-B/pod")
	b.ReportMetric(float64(snapshot)/float64(pods), "snapshot-B/pod")
}

func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
