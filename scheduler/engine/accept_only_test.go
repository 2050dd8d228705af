package engine

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// A strategy that only moves pods to a few nodes lists them in
// Options.AcceptOnly: the decision and, when no node fits, the message must
// be those of a search of every node, while Accept is asked about the
// candidates alone when one of them fits.
func TestAcceptOnlyGivesTheDecisionOfAFullSearch(t *testing.T) {
	// 400 nodes, so that the default profile stops after 188 feasible
	// nodes: every tenth cordoned, every seventh tainted, the others
	// filled unevenly so that scores differ.
	var nodes []corev1.Node
	var pods []corev1.Pod
	for i := range 400 {
		name := fmt.Sprintf("n%03d", i)
		b := ct.Node(name).Allocatable(corev1.ResourceCPU, "8").Allocatable(corev1.ResourceMemory, "16Gi")
		switch {
		case i%10 == 0:
			b = b.Unschedulable()
		case i%7 == 0:
			b = b.Taint("dedicated", "batch", corev1.TaintEffectNoSchedule)
		}
		nodes = append(nodes, b.Obj())
		pods = append(pods, ct.Pod("default", "filler-"+name).On(name).Requests(fmt.Sprint(i%6+1), "1Gi").Obj())
	}
	pods = append(pods, incomingPod().Requests("2", "1Gi").Obj())
	s := newSnapshot(t, nodes, pods)

	every := func(k int) func(i int) bool { return func(i int) bool { return i%k == 3 } }
	tests := []struct {
		name string
		// accepted says which nodes, by index, Accept takes; the
		// candidates are exactly these.
		accepted func(i int) bool
		// candidates, when set, are the nodes listed instead: Accept may
		// refuse some of them, and a caller that breaks the promise lists
		// fewer than Accept takes.
		candidates func(i int) bool
		exclude    []string
		wantNode   bool
	}{
		{name: "more candidates than the search needs", accepted: func(i int) bool { return i != 5 }, wantNode: true},
		{name: "a few candidates, spread over the nodes", accepted: every(9), wantNode: true},
		{name: "candidates before the search's start only", accepted: func(i int) bool { return i < 30 }, wantNode: true},
		{name: "the best candidate excluded", accepted: every(9), exclude: []string{"n003", "n012"}, wantNode: true},
		{name: "no candidate fits: cordoned and tainted", accepted: func(i int) bool { return i%10 == 0 || i == 7 }},
		{name: "no candidate at all", accepted: func(int) bool { return false }},
		{name: "candidates that Accept refuses too", accepted: func(int) bool { return false }, candidates: every(9)},
		{name: "a node outside the candidates fits, against the promise", accepted: func(int) bool { return true },
			candidates: func(i int) bool { return i%10 == 0 }, wantNode: true},
	}
	e := defaultEngine(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			asked := 0
			askedAbout := make(map[int]int)
			accept := func(n *cluster.Node) (bool, string) {
				asked++
				askedAbout[n.Index()]++
				if tc.accepted(n.Index()) {
					return true, ""
				}
				return false, "node(s) were not under-utilized"
			}
			listed := tc.accepted
			if tc.candidates != nil {
				listed = tc.candidates
			}
			candidates := []int32{}
			for i := range nodes {
				if listed(i) {
					candidates = append(candidates, int32(i))
				}
			}
			full := e.Schedule(s, incoming(t, s), Options{Exclude: tc.exclude, Accept: accept})
			asked = 0
			clear(askedAbout)
			got := e.Schedule(s, incoming(t, s), Options{Exclude: tc.exclude, Accept: accept, AcceptOnly: candidates})
			if got.Node != full.Node || got.Score != full.Score || got.RunnerUp != full.RunnerUp ||
				got.RunnerUpScore != full.RunnerUpScore || got.Feasible != full.Feasible || got.Message != full.Message {
				t.Errorf("with candidates: %+v\nwithout:         %+v", got, full)
			}
			if (got.Node != "") != tc.wantNode {
				t.Errorf("chose %q (%s), want a node: %v", got.Node, got.Message, tc.wantNode)
			}
			if tc.wantNode && tc.candidates == nil && asked > len(candidates) {
				t.Errorf("Accept was asked about %d nodes, more than the %d candidates", asked, len(candidates))
			}
			// When no candidate fits, every node is looked at for the
			// message, but none twice.
			if !tc.wantNode {
				for i, n := range askedAbout {
					if n > 1 {
						t.Errorf("Accept was asked about %s %d times", nodes[i].Name, n)
					}
				}
			}
		})
	}
}
