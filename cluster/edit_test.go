package cluster

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// TestEditErrors is internal to cluster: the pod from outside the snapshot
// it places is made with newPod, which nothing exported offers.
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
