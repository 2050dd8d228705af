package nodename_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/schedulertest"
)

func TestNodeNameBindsOnlyPodsNeverBound(t *testing.T) {
	nodes := []corev1.Node{ct.Node("a").Obj(), ct.Node("b").Obj()}
	pinned := schedulertest.IncomingPod().On("b").Obj()
	s := schedulertest.NewSnapshot(t, nodes, []corev1.Pod{pinned})
	// A pending pod that names node b is bound there or nowhere.
	res := schedulertest.DefaultEngine(t).Schedule(s, schedulertest.Incoming(t, s), engine.Options{Exclude: []string{"b"}})
	want := "0/2 nodes are available: 1 node(s) didn't match the requested node name, 1 node(s) were excluded as the node the pod leaves."
	if res.Message != want {
		t.Errorf("message %q, want %q", res.Message, want)
	}

	// A running pod taken off b by the planner is being replaced: its
	// replacement names no node.
	running := ct.Pod("default", "incoming").On("b").Obj()
	s = schedulertest.NewSnapshot(t, nodes, []corev1.Pod{running})
	p := schedulertest.Incoming(t, s)
	s.Remove(p)
	if res := schedulertest.DefaultEngine(t).Schedule(s, p, engine.Options{Exclude: []string{"b"}}); res.Node != "a" {
		t.Errorf("the replacement went to %q (%s), want a", res.Node, res.Message)
	}
}
