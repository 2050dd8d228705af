package engine

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

func TestNumFeasibleNodesToFindIsKubeSchedulers(t *testing.T) {
	pct := func(v int32) *int32 { return &v }
	tests := []struct {
		percentage *int32
		nodes      int
		want       int
	}{
		{nil, 50, 50},          // under 100 nodes: all of them
		{pct(10), 99, 99},      // whatever the percentage
		{nil, 100, 100},        // 49% of 100 is under the floor of 100
		{nil, 1000, 420},       // 50% - 1000/125 = 42%
		{nil, 5000, 500},       // 50% - 40 = 10%
		{nil, 10000, 500},      // 50% - 80 is under the 5% floor
		{pct(0), 5000, 500},    // 0 means adaptive
		{pct(100), 5000, 5000}, // every node
		{pct(30), 5000, 1500},  // the profile's share
		{pct(1), 5000, 100},    // never fewer than 100 nodes
	}
	for _, tc := range tests {
		if got := numFeasibleNodesToFind(tc.percentage, tc.nodes); got != tc.want {
			t.Errorf("numFeasibleNodesToFind(%v, %d) = %d, want %d", tc.percentage, tc.nodes, got, tc.want)
		}
	}
}

func TestSearchStopsAfterEnoughFeasibleNodes(t *testing.T) {
	// 400 nodes: kube-scheduler's default looks for 50%-3% = 188 feasible
	// nodes; node 17 is the only one the pod fits best (the emptiest).
	var nodes []corev1.Node
	var pods []corev1.Pod
	for i := range 400 {
		name := fmt.Sprintf("n%03d", i)
		nodes = append(nodes, ct.Node(name).Obj())
		if i != 17 {
			pods = append(pods, ct.Pod("default", "filler-"+name).On(name).Requests("1", "1Gi").Obj())
		}
	}
	pods = append(pods, incomingPod().Requests("1", "1Gi").Obj())
	s := newSnapshot(t, nodes, pods)

	sampled := defaultEngine(t)
	first := sampled.Schedule(s, incoming(t, s), Options{Explain: true})
	if first.Feasible != 188 || first.Evaluated != 188 {
		t.Errorf("found %d feasible of %d evaluated, want 188 of 188", first.Feasible, first.Evaluated)
	}
	skipped := 0
	for _, n := range first.Nodes {
		if n.Reason == notEvaluated[0] {
			skipped++
		}
	}
	if skipped != 400-188 {
		t.Errorf("%d nodes explained as not evaluated, want %d", skipped, 400-188)
	}
	// The same call gives the same answer: the search starts at a place
	// derived from the pod's name, not from earlier calls.
	for range 3 {
		if again := sampled.Schedule(s, incoming(t, s), Options{}); again.Node != first.Node || again.Score != first.Score {
			t.Fatalf("second call chose %q (%d), first %q (%d)", again.Node, again.Score, first.Node, first.Score)
		}
	}

	p := profile.DefaultProfile()
	p.PercentageOfNodesToScore = ptr.To(int32(100))
	all, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	res := all.Schedule(s, incoming(t, s), Options{})
	if res.Evaluated != 400 || res.Feasible != 400 || res.Node != "n017" {
		t.Errorf("at 100%%: %d evaluated, %d feasible, chose %q; want 400, 400 and n017", res.Evaluated, res.Feasible, res.Node)
	}
}

func TestAPodThatFitsNowhereIsCheckedOnEveryNode(t *testing.T) {
	var nodes []corev1.Node
	for i := range 300 {
		nodes = append(nodes, ct.Node(fmt.Sprintf("n%03d", i)).Allocatable(corev1.ResourceCPU, "1").Obj())
	}
	s := newSnapshot(t, nodes, []corev1.Pod{incomingPod().Requests("2", "").Obj()})
	res := defaultEngine(t).Schedule(s, incoming(t, s), Options{})
	if want := "0/300 nodes are available: 300 Insufficient cpu."; res.Message != want || res.Evaluated != 300 {
		t.Errorf("message %q after %d nodes, want %q after 300", res.Message, res.Evaluated, want)
	}
}
