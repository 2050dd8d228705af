package scheduler

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

func TestNodePorts(t *testing.T) {
	existing := func() *ct.PodBuilder { return ct.Pod("default", "existing").On("node1") }
	proxy := corev1.Container{Name: "proxy", Image: "proxy", Ports: []corev1.ContainerPort{{ContainerPort: 9090, HostPort: 9090}}}
	tests := []struct {
		name     string
		existing *ct.PodBuilder
		want     *ct.PodBuilder
		conflict bool
	}{
		{"same port and protocol on all addresses", existing().HostPort(8080, corev1.ProtocolTCP, ""), incomingPod().HostPort(8080, corev1.ProtocolTCP, ""), true},
		{"protocol defaults to TCP", existing().HostPort(8080, "", ""), incomingPod().HostPort(8080, corev1.ProtocolTCP, ""), true},
		{"another protocol", existing().HostPort(8080, corev1.ProtocolTCP, ""), incomingPod().HostPort(8080, corev1.ProtocolUDP, ""), false},
		{"another port", existing().HostPort(8080, corev1.ProtocolTCP, ""), incomingPod().HostPort(8081, corev1.ProtocolTCP, ""), false},
		{"a specific address against the wildcard", existing().HostPort(8080, corev1.ProtocolTCP, "0.0.0.0"), incomingPod().HostPort(8080, corev1.ProtocolTCP, "10.0.0.1"), true},
		{"the wildcard against a specific address", existing().HostPort(8080, corev1.ProtocolTCP, "10.0.0.1"), incomingPod().HostPort(8080, corev1.ProtocolTCP, ""), true},
		{"two different addresses", existing().HostPort(8080, corev1.ProtocolTCP, "10.0.0.1"), incomingPod().HostPort(8080, corev1.ProtocolTCP, "10.0.0.2"), false},
		{"a sidecar's host port is held for the pod's life", existing().Sidecar(proxy), incomingPod().HostPort(9090, corev1.ProtocolTCP, ""), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSnapshot(t, []corev1.Node{ct.Node("node1").Obj()}, []corev1.Pod{tc.existing.Obj(), tc.want.Obj()})
			res := defaultEngine(t).Schedule(s, incoming(t, s), Options{})
			want := ""
			if tc.conflict {
				want = "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports."
			}
			if res.Message != want {
				t.Errorf("message %q, want %q", res.Message, want)
			}
		})
	}
}

func TestNodeNameBindsOnlyPodsNeverBound(t *testing.T) {
	nodes := []corev1.Node{ct.Node("a").Obj(), ct.Node("b").Obj()}
	pinned := incomingPod().On("b").Obj()
	s := newSnapshot(t, nodes, []corev1.Pod{pinned})
	// A pending pod that names node b is bound there or nowhere.
	res := defaultEngine(t).Schedule(s, incoming(t, s), Options{Exclude: []string{"b"}})
	want := "0/2 nodes are available: 1 node(s) didn't match the requested node name, 1 node(s) were excluded as the node the pod leaves."
	if res.Message != want {
		t.Errorf("message %q, want %q", res.Message, want)
	}

	// A running pod taken off b by the planner is being replaced: its
	// replacement names no node.
	running := ct.Pod("default", "incoming").On("b").Obj()
	s = newSnapshot(t, nodes, []corev1.Pod{running})
	p := incoming(t, s)
	s.Remove(p)
	if res := defaultEngine(t).Schedule(s, p, Options{Exclude: []string{"b"}}); res.Node != "a" {
		t.Errorf("the replacement went to %q (%s), want a", res.Node, res.Message)
	}
}

func TestImageLocalityPrefersNodesWithTheImage(t *testing.T) {
	const mb = 1024 * 1024
	nodes := []corev1.Node{
		ct.Node("a").Image(500*mb, "registry.example/big:1").Obj(),
		ct.Node("b").Obj(),
		ct.Node("c").Image(500*mb, "registry.example/big:1").Obj(),
		ct.Node("d").Image(500*mb, "registry.example/other:latest").Obj(),
	}
	pods := []corev1.Pod{incomingPod().Image("registry.example/big:1").Obj()}
	got := scoresOf(t, defaultEngine(t), nodes, pods, ImageLocality)
	// The image is on 2 of 4 nodes: it counts 250MB there. (250-23)*100/(1000-23) = 23.
	want := []int64{23, 0, 23, 0}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ImageLocality scores %v, want %v", got, want)
		}
	}

	// An image without a tag is the ":latest" one.
	pods = []corev1.Pod{incomingPod().Image("registry.example/other").Obj()}
	if got := scoresOf(t, defaultEngine(t), nodes, pods, ImageLocality); got[3] == 0 || got[0] != 0 {
		t.Errorf("ImageLocality scores %v for an untagged image: want only d above 0", got)
	}
}
