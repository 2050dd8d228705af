package cluster_test

import (
	"testing"
	"time"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

func TestForkIsolatesEdits(t *testing.T) {
	withPort := clustertest.Pod("a", "p1").On("n1").Requests("1", "1Gi").HostPort(8080, "", "")
	base, err := cluster.New(clustertest.Objects(
		clustertest.Node("n1").CPU("4").Memory("8Gi"), clustertest.Node("n2").CPU("4").Memory("8Gi"), clustertest.Node("n3").CPU("4").Memory("8Gi"),
		withPort, clustertest.Pod("a", "p2").On("n1").Requests("1", "1Gi"),
	), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	p1 := base.Pod("a/p1")

	f := base.Fork()
	if err := f.Move(p1, "n2"); err != nil {
		t.Fatal(err)
	}
	// The fork sees the move ...
	if got := f.NodeOf(p1).Name; got != "n2" {
		t.Errorf("fork: NodeOf(p1) = %s, want n2", got)
	}
	if got := f.Node("n1").Requested.MilliCPU; got != 1000 {
		t.Errorf("fork: n1 cpu = %d, want 1000", got)
	}
	if got := f.Node("n2").HostPorts(); len(got) != 1 || got[0].Port != 8080 {
		t.Errorf("fork: n2 host ports = %v, want 8080", got)
	}
	// ... the base does not,
	if got := base.NodeOf(p1).Name; got != "n1" {
		t.Errorf("base: NodeOf(p1) = %s, want n1", got)
	}
	if got := base.Node("n1").Requested.MilliCPU; got != 2000 {
		t.Errorf("base: n1 cpu = %d, want 2000", got)
	}
	if len(base.Node("n2").Pods()) != 0 || len(base.Node("n1").HostPorts()) != 1 {
		t.Error("base: the move leaked into the base snapshot")
	}
	// ... untouched nodes are shared, not copied,
	if f.Node("n3") != base.Node("n3") {
		t.Error("fork copied a node no edit touched")
	}
	// ... and a fork of the fork is isolated from it in turn.
	g := f.Fork()
	g.Remove(p1)
	if f.NodeOf(p1) == nil || g.NodeOf(p1) != nil {
		t.Error("Remove on a second fork changed the first")
	}
	if err := base.Move(p1, "n3"); err != nil {
		t.Fatal(err)
	}
	if got := f.NodeOf(p1).Name; got != "n2" {
		t.Errorf("an edit of the base after Fork changed the fork: NodeOf(p1) = %s", got)
	}
	if got := f.Node("n3").Requested.MilliCPU; got != 0 {
		t.Errorf("an edit of the base after Fork changed the fork's n3: %dm", got)
	}
}
