package cluster_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

func TestNominatedPods(t *testing.T) {
	nominate := func(node string) func(*corev1.Pod) {
		return func(p *corev1.Pod) { p.Status.NominatedNodeName = node }
	}
	s := ct.Snapshot(t, ct.Node("a"),
		ct.Pod("default", "waiting").Pending().Edit(nominate("a")),
		ct.Pod("default", "unknown-node").Pending().Edit(nominate("gone")),
		ct.Pod("default", "deleted").Pending().Terminating().Edit(nominate("a")),
		ct.Pod("default", "bound").On("a").Edit(nominate("a")),
		ct.Pod("default", "plain").Pending())
	var got []string
	for _, p := range s.Nominated() {
		got = append(got, p.Key)
	}
	if len(got) != 2 || got[0] != "default/unknown-node" || got[1] != "default/waiting" {
		t.Errorf("Nominated() = %v, want the pending pods with a nominated node that are not being deleted", got)
	}
	waiting := s.Pod("default/waiting")
	if n := s.NominatedTo(waiting); n == nil || n.Name != "a" {
		t.Errorf("NominatedTo(waiting) = %v, want node a", n)
	}
	if n := s.NominatedTo(s.Pod("default/unknown-node")); n != nil {
		t.Errorf("a pod nominated to a node the snapshot lacks is nominated to %s", n.Name)
	}

	scratch := s.Scratch()
	if err := scratch.Place(waiting, "a"); err != nil {
		t.Fatal(err)
	}
	if scratch.NominatedTo(waiting) != nil {
		t.Error("a nominated pod placed by an edit still counts as waiting for its node")
	}
	if s.NodeOf(waiting) != nil || s.Node("a").Requested.Pods != 1 {
		t.Errorf("editing the scratch copy changed the snapshot: waiting is on %v, node a holds %d pods", s.NodeOf(waiting), s.Node("a").Requested.Pods)
	}
}
