package scheduler

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestNodePorts(t *testing.T) {
	sidecarWithPort := func(port int32) podOption {
		return func(p *corev1.Pod) {
			p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{
				Name: "proxy", Image: "proxy", RestartPolicy: ptrTo(corev1.ContainerRestartPolicyAlways),
				Ports: []corev1.ContainerPort{{ContainerPort: port, HostPort: port}},
			})
		}
	}
	tests := []struct {
		name     string
		existing podOption
		want     podOption
		conflict bool
	}{
		{"same port and protocol on all addresses", hostPort(8080, corev1.ProtocolTCP, ""), hostPort(8080, corev1.ProtocolTCP, ""), true},
		{"protocol defaults to TCP", hostPort(8080, "", ""), hostPort(8080, corev1.ProtocolTCP, ""), true},
		{"another protocol", hostPort(8080, corev1.ProtocolTCP, ""), hostPort(8080, corev1.ProtocolUDP, ""), false},
		{"another port", hostPort(8080, corev1.ProtocolTCP, ""), hostPort(8081, corev1.ProtocolTCP, ""), false},
		{"a specific address against the wildcard", hostPort(8080, corev1.ProtocolTCP, "0.0.0.0"), hostPort(8080, corev1.ProtocolTCP, "10.0.0.1"), true},
		{"the wildcard against a specific address", hostPort(8080, corev1.ProtocolTCP, "10.0.0.1"), hostPort(8080, corev1.ProtocolTCP, ""), true},
		{"two different addresses", hostPort(8080, corev1.ProtocolTCP, "10.0.0.1"), hostPort(8080, corev1.ProtocolTCP, "10.0.0.2"), false},
		{"a sidecar's host port is held for the pod's life", sidecarWithPort(9090), hostPort(9090, corev1.ProtocolTCP, ""), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSnapshot(t, []corev1.Node{mkNode("node1")}, []corev1.Pod{mkPod("existing", on("node1"), tc.existing), mkPod("incoming", tc.want)})
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
	nodes := []corev1.Node{mkNode("a"), mkNode("b")}
	pinned := mkPod("incoming", func(p *corev1.Pod) { p.Spec.NodeName = "b" })
	s := newSnapshot(t, nodes, []corev1.Pod{pinned})
	// A pending pod that names node b is bound there or nowhere.
	res := defaultEngine(t).Schedule(s, incoming(t, s), Options{Exclude: []string{"b"}})
	want := "0/2 nodes are available: 1 node(s) didn't match the requested node name, 1 node(s) were excluded as the node the pod leaves."
	if res.Message != want {
		t.Errorf("message %q, want %q", res.Message, want)
	}

	// A running pod taken off b by the planner is being replaced: its
	// replacement names no node.
	running := mkPod("incoming", on("b"))
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
		mkNode("a", images(500*mb, "registry.example/big:1")),
		mkNode("b"),
		mkNode("c", images(500*mb, "registry.example/big:1")),
		mkNode("d", images(500*mb, "registry.example/other:latest")),
	}
	pods := []corev1.Pod{mkPod("incoming", image("registry.example/big:1"))}
	got := scoresOf(t, defaultEngine(t), nodes, pods, ImageLocality)
	// The image is on 2 of 4 nodes: it counts 250MB there. (250-23)*100/(1000-23) = 23.
	want := []int64{23, 0, 23, 0}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ImageLocality scores %v, want %v", got, want)
		}
	}

	// An image without a tag is the ":latest" one.
	pods = []corev1.Pod{mkPod("incoming", image("registry.example/other"))}
	if got := scoresOf(t, defaultEngine(t), nodes, pods, ImageLocality); got[3] == 0 || got[0] != 0 {
		t.Errorf("ImageLocality scores %v for an untagged image: want only d above 0", got)
	}
}
