package cluster

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestNodeIndexIsThePositionInEveryFork(t *testing.T) {
	objs := Objects{
		Nodes: []corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, {ObjectMeta: metav1.ObjectMeta{Name: "a"}}, {ObjectMeta: metav1.ObjectMeta{Name: "b"}}},
		Pods:  []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}, Spec: corev1.PodSpec{NodeName: "a"}}},
	}
	s, err := New(objs, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	f := s.Fork()
	if err := f.Move(f.Pod("ns/p"), "c"); err != nil {
		t.Fatal(err)
	}
	for _, snap := range []*Snapshot{s, f} {
		for i, n := range snap.Nodes() {
			if n.Index() != i {
				t.Errorf("node %s has index %d at position %d", n.Name, n.Index(), i)
			}
		}
	}
}

func TestPodHostPortsCountsSidecarsNotInitContainers(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	p := &corev1.Pod{Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{
			{Name: "setup", Ports: []corev1.ContainerPort{{HostPort: 7000}}},
			{Name: "proxy", RestartPolicy: &always, Ports: []corev1.ContainerPort{{HostPort: 15001, Protocol: corev1.ProtocolUDP, HostIP: "10.0.0.1"}}},
		},
		Containers: []corev1.Container{{Name: "app", Ports: []corev1.ContainerPort{{HostPort: 8080}, {ContainerPort: 9090}}}},
	}}
	got := PodHostPorts(p)
	want := []HostPort{{IP: "0.0.0.0", Protocol: corev1.ProtocolTCP, Port: 8080}, {IP: "10.0.0.1", Protocol: corev1.ProtocolUDP, Port: 15001}}
	if len(got) != len(want) {
		t.Fatalf("PodHostPorts = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("PodHostPorts = %v, want %v", got, want)
		}
	}
}
