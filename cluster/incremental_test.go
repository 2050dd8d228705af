package cluster_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// describe prints what a snapshot says about its nodes and pods: each
// node's requests and pods, each pod's node and workload, in order.
func describe(s *cluster.Snapshot) string {
	var b strings.Builder
	for _, n := range s.Nodes() {
		var pods []string
		for _, p := range n.Pods() {
			pods = append(pods, p.Key)
		}
		slices.Sort(pods)
		fmt.Fprintf(&b, "node %s cpu=%d mem=%d pods=%v\n", n.Name, n.Requested.Get(corev1.ResourceCPU), n.Requested.Get(corev1.ResourceMemory), pods)
	}
	for _, p := range s.Pods() {
		node := ""
		if n := s.NodeOf(p); n != nil {
			node = n.Name
		}
		fmt.Fprintf(&b, "pod %s on %q workload %v priority %d\n", p.Key, node, p.Workload, p.Priority)
	}
	for _, p := range s.Nominated() {
		fmt.Fprintf(&b, "nominated %s to %s\n", p.Key, p.Status.NominatedNodeName)
	}
	for _, w := range s.Workloads() {
		var pods []string
		for _, p := range s.PodsOf(w) {
			pods = append(pods, p.Key)
		}
		fmt.Fprintf(&b, "workload %v %v\n", w, pods)
	}
	return b.String()
}

// A snapshot kept up to date object by object says what a snapshot built
// from the final objects says.
func TestIncrementalUpdatesMatchAFreshSnapshot(t *testing.T) {
	web := cluster.Workload{Kind: "ReplicaSet", Namespace: "shop", Name: "web"}
	n1, n2, n3 := ct.Node("n1").Obj(), ct.Node("n2").Obj(), ct.Node("n3").Obj()
	web1 := ct.Pod("shop", "web-1").On("n1").Requests("500m", "256Mi").OwnedBy("ReplicaSet", "web").Obj()
	web2 := ct.Pod("shop", "web-2").On("n2").Requests("1", "1Gi").OwnedBy("ReplicaSet", "web").Obj()
	pending := ct.Pod("shop", "api-0").Requests("2", "").Obj()
	bound := pending
	bound.Spec.NodeName = "n3"
	done := ct.Pod("batch", "job-1").On("n1").Requests("3", "").Phase(corev1.PodSucceeded).Obj()
	relabeled := web1
	relabeled.Labels = map[string]string{"app": "web", "tier": "front"}
	cordoned := ct.Node("n2").Cordoned().Obj()
	nominated := pending
	nominated.Status.NominatedNodeName = "n3"

	type step func(s *cluster.Snapshot)
	setPod := func(p corev1.Pod, w cluster.Workload) step {
		return func(s *cluster.Snapshot) { s.SetPod(&p, w) }
	}
	setNode := func(n corev1.Node) step { return func(s *cluster.Snapshot) { s.SetNode(&n) } }
	tests := []struct {
		name  string
		steps []step
		// want are the objects a fresh snapshot is built from.
		want []any
	}{
		{
			name:  "nodes and pods added in any order",
			steps: []step{setPod(web2, web), setNode(n2), setPod(web1, web), setNode(n1), setNode(n3), setPod(pending, cluster.Workload{})},
			want:  []any{n1, n2, n3, web1, web2, pending},
		},
		{
			name:  "a pending pod nominated to a node",
			steps: []step{setNode(n3), setPod(pending, cluster.Workload{}), setPod(nominated, cluster.Workload{})},
			want:  []any{n3, nominated},
		},
		{
			name:  "a nominated pod bound",
			steps: []step{setNode(n3), setPod(nominated, cluster.Workload{}), setPod(bound, cluster.Workload{})},
			want:  []any{n3, bound},
		},
		{
			name:  "a pending pod is bound",
			steps: []step{setNode(n1), setNode(n3), setPod(pending, cluster.Workload{}), setPod(bound, cluster.Workload{})},
			want:  []any{n1, n3, bound},
		},
		{
			name:  "a finished pod frees its node",
			steps: []step{setNode(n1), setPod(ct.Pod("batch", "job-1").On("n1").Requests("3", "").Obj(), cluster.Workload{}), setPod(done, cluster.Workload{})},
			want:  []any{n1, done},
		},
		{
			name:  "a pod relabeled and a node cordoned",
			steps: []step{setNode(n1), setNode(n2), setPod(web1, web), setPod(web2, web), setPod(relabeled, web), setNode(cordoned)},
			want:  []any{n1, cordoned, relabeled, web2},
		},
		{
			name: "a pod deleted",
			steps: []step{setNode(n1), setNode(n2), setPod(web1, web), setPod(web2, web),
				func(s *cluster.Snapshot) { s.DeletePod("shop/web-1") }},
			want: []any{n1, n2, web2},
		},
		{
			name: "a node deleted leaves its pods on no node",
			steps: []step{setNode(n1), setNode(n2), setNode(n3), setPod(web1, web), setPod(web2, web),
				func(s *cluster.Snapshot) { s.DeleteNode("n1") }},
			want: []any{n2, n3, web1, web2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := cluster.New(cluster.Objects{}, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range tt.steps {
				st(s)
			}
			objs := ct.Objects(tt.want...)
			// A fresh snapshot resolves the workload from the ReplicaSet
			// itself, which the steps named.
			fresh, err := cluster.New(objs, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := describe(s), describe(fresh); got != want {
				t.Errorf("kept up to date:\n%s\nbuilt afresh:\n%s", got, want)
			}
		})
	}
}

// The engine keeps tables while the generation does: it must change when
// what they derive from changes, and only then.
func TestIncrementalGeneration(t *testing.T) {
	n1 := ct.Node("n1").Obj()
	p := ct.Pod("shop", "web-1").Requests("1", "").Obj()
	boundP := p
	boundP.Spec.NodeName = "n1"
	running := boundP
	running.Status.Phase = corev1.PodRunning
	relabeled := running
	relabeled.Labels = map[string]string{"app": "other"}
	heartbeat := n1
	heartbeat.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: n1.CreationTimestamp}}
	tainted := ct.Node("n1").Taint("dedicated", "db", corev1.TaintEffectNoSchedule).Obj()

	s, err := cluster.New(cluster.Objects{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		change  func()
		changes bool
	}{
		{"a node added", func() { s.SetNode(&n1) }, true},
		{"a pod added", func() { s.SetPod(&p, cluster.Workload{}) }, true},
		{"the pod bound", func() { s.SetPod(&boundP, cluster.Workload{}) }, false},
		{"the pod running", func() { s.SetPod(&running, cluster.Workload{}) }, false},
		{"the pod placed elsewhere by an edit", func() { _ = s.Place(s.Pod("shop/web-1"), "n1") }, false},
		{"the node's heartbeat", func() { s.SetNode(&heartbeat) }, false},
		{"the pod relabeled", func() { s.SetPod(&relabeled, cluster.Workload{}) }, true},
		{"the node tainted", func() { s.SetNode(&tainted) }, true},
		{"the pod deleted", func() { s.DeletePod("shop/web-1") }, true},
		{"a pod never there deleted", func() { s.DeletePod("shop/none") }, false},
		{"the node deleted", func() { s.DeleteNode("n1") }, true},
	}
	for _, tt := range tests {
		before := s.Generation()
		tt.change()
		if changed := s.Generation() != before; changed != tt.changes {
			t.Errorf("%s: generation changed = %v, want %v", tt.name, changed, tt.changes)
		}
	}
}

// The engine keeps tables per generation, whatever snapshot asks: a fork
// and its edits that only move pods share the generation of the snapshot,
// and no two snapshots whose objects differ share one, even when each made
// as many changes as the other.
func TestGenerationNamesTheObjects(t *testing.T) {
	objs := cluster.Objects{
		Nodes: []corev1.Node{ct.Node("n1").Obj(), ct.Node("n2").Obj()},
		Pods:  []corev1.Pod{ct.Pod("shop", "web-1").On("n1").Requests("1", "").Obj()},
	}
	a, err := cluster.New(objs, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := cluster.New(objs, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Generation() == b.Generation() {
		t.Error("two snapshots built by New share a generation")
	}
	fork := a.Fork()
	if err := fork.Move(fork.Pod("shop/web-1"), "n2"); err != nil {
		t.Fatal(err)
	}
	if fork.Generation() != a.Generation() {
		t.Error("a fork whose pod moved has another generation than its snapshot")
	}
	if a.Scratch().Generation() != a.Generation() {
		t.Error("a scratch copy has another generation than its snapshot")
	}
	// Both change their objects once, each in its own way.
	n3, n4 := ct.Node("n3").Obj(), ct.Node("n4").Obj()
	a.SetNode(&n3)
	b.SetNode(&n4)
	if a.Generation() == b.Generation() {
		t.Error("two snapshots, each with another node added, share a generation")
	}
}
