package cluster

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func TestForkIsolatesEdits(t *testing.T) {
	withPort := pod("a", "p1", "n1", container("web", "1", "1Gi"))
	withPort.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: 8080}}
	base, err := New(Objects{
		Nodes: []corev1.Node{node("n1", "4", "8Gi"), node("n2", "4", "8Gi"), node("n3", "4", "8Gi")},
		Pods:  []corev1.Pod{withPort, pod("a", "p2", "n1", container("web", "1", "1Gi"))},
	}, time.Time{})
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

func TestEditErrors(t *testing.T) {
	snap, err := New(Objects{Nodes: []corev1.Node{node("n1", "4", "8Gi")}, Pods: []corev1.Pod{pod("a", "pending", "")}}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	p := snap.Pod("a/pending")
	if err := snap.Move(p, "n1"); err == nil {
		t.Error("Move of a pending pod succeeded; it is on no node")
	}
	if err := snap.Place(p, "nope"); err == nil {
		t.Error("Place on an unknown node succeeded")
	}
	stranger := newPod(&corev1.Pod{}, 0)
	if err := snap.Place(stranger, "n1"); err == nil {
		t.Error("Place of a pod from outside the snapshot succeeded")
	}
	if err := snap.Place(p, "n1"); err != nil || snap.NodeOf(p).Name != "n1" {
		t.Errorf("Place(pending, n1) = %v", err)
	}
}
