package nodeports_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/schedulertest"
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
		{"same port and protocol on all addresses", existing().HostPort(8080, corev1.ProtocolTCP, ""), schedulertest.IncomingPod().HostPort(8080, corev1.ProtocolTCP, ""), true},
		{"protocol defaults to TCP", existing().HostPort(8080, "", ""), schedulertest.IncomingPod().HostPort(8080, corev1.ProtocolTCP, ""), true},
		{"another protocol", existing().HostPort(8080, corev1.ProtocolTCP, ""), schedulertest.IncomingPod().HostPort(8080, corev1.ProtocolUDP, ""), false},
		{"another port", existing().HostPort(8080, corev1.ProtocolTCP, ""), schedulertest.IncomingPod().HostPort(8081, corev1.ProtocolTCP, ""), false},
		{"a specific address against the wildcard", existing().HostPort(8080, corev1.ProtocolTCP, "0.0.0.0"), schedulertest.IncomingPod().HostPort(8080, corev1.ProtocolTCP, "10.0.0.1"), true},
		{"the wildcard against a specific address", existing().HostPort(8080, corev1.ProtocolTCP, "10.0.0.1"), schedulertest.IncomingPod().HostPort(8080, corev1.ProtocolTCP, ""), true},
		{"two different addresses", existing().HostPort(8080, corev1.ProtocolTCP, "10.0.0.1"), schedulertest.IncomingPod().HostPort(8080, corev1.ProtocolTCP, "10.0.0.2"), false},
		{"a sidecar's host port is held for the pod's life", existing().Sidecar(proxy), schedulertest.IncomingPod().HostPort(9090, corev1.ProtocolTCP, ""), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := schedulertest.NewSnapshot(t, []corev1.Node{ct.Node("node1").Obj()}, []corev1.Pod{tc.existing.Obj(), tc.want.Obj()})
			res := schedulertest.DefaultEngine(t).Schedule(s, schedulertest.Incoming(t, s), engine.Options{})
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
