package engine

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/noderesources"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/nodeunschedulable"
)

func TestMessageCountsReasonsPerNodeSortedAsKubeScheduler(t *testing.T) {
	nodes := []corev1.Node{
		ct.Node("n1").Unschedulable().Obj(),
		ct.Node("n2").Taint("dedicated", "gpu", corev1.TaintEffectNoSchedule).Obj(),
		ct.Node("n3").Taint("dedicated", "gpu", corev1.TaintEffectNoSchedule).Obj(),
		ct.Node("n4").Allocatable(corev1.ResourceCPU, "1").Obj(),
		ct.Node("n5").Allocatable(corev1.ResourceCPU, "1").Obj(),
		ct.Node("n6").Allocatable(corev1.ResourceCPU, "1").Obj(),
	}
	s := newSnapshot(t, nodes, []corev1.Pod{incomingPod().Requests("2", "1Gi").Obj()})
	res := defaultEngine(t).Schedule(s, incoming(t, s), Options{})
	want := "0/6 nodes are available: 1 node(s) were unschedulable, 2 node(s) had untolerated taint {dedicated: gpu}, 3 Insufficient cpu."
	if res.Message != want || res.Node != "" || res.Feasible != 0 {
		t.Errorf("got node %q, feasible %d, message\n %q\nwant no node and\n %q", res.Node, res.Feasible, res.Message, want)
	}
}

func TestMessageCountsEveryInsufficientResourceOfANode(t *testing.T) {
	nodes := []corev1.Node{
		ct.Node("n1").Allocatable(corev1.ResourceCPU, "1").Allocatable(corev1.ResourceMemory, "1Gi").Obj(),
		ct.Node("n2").Allocatable(corev1.ResourceCPU, "1").Obj(),
		ct.Node("n3").Allocatable(corev1.ResourcePods, "0").Obj(),
	}
	s := newSnapshot(t, nodes, []corev1.Pod{incomingPod().Requests("2", "2Gi").Obj()})
	res := defaultEngine(t).Schedule(s, incoming(t, s), Options{})
	// Reasons sort as strings, so "Insufficient" comes before "Too".
	want := "0/3 nodes are available: 1 Insufficient memory, 1 Too many pods, 2 Insufficient cpu."
	if res.Message != want {
		t.Errorf("message\n %q\nwant\n %q", res.Message, want)
	}
}

func TestMessageCountsExcludeAndAcceptLikePlugins(t *testing.T) {
	nodes := []corev1.Node{ct.Node("from").Obj(), ct.Node("small").Allocatable(corev1.ResourceCPU, "1").Obj(), ct.Node("busy1").Obj(), ct.Node("busy2").Obj()}
	s := newSnapshot(t, nodes, []corev1.Pod{incomingPod().Requests("2", "").Obj()})
	res := defaultEngine(t).Schedule(s, incoming(t, s), Options{
		Exclude: []string{"from"},
		Accept: func(n *cluster.Node) (bool, string) {
			return false, "node(s) would exceed the target utilization"
		},
	})
	want := "0/4 nodes are available: 1 Insufficient cpu, 1 node(s) were excluded as the node the pod leaves, 2 node(s) would exceed the target utilization."
	if res.Message != want {
		t.Errorf("message\n %q\nwant\n %q", res.Message, want)
	}

	res = defaultEngine(t).Schedule(s, incoming(t, s), Options{Exclude: []string{"from", "busy1", "busy2"}, ExcludeReason: "node(s) were drained"})
	want = "0/4 nodes are available: 1 Insufficient cpu, 3 node(s) were drained."
	if res.Message != want {
		t.Errorf("message\n %q\nwant\n %q", res.Message, want)
	}
}

func TestExplainReportsTheFirstFailingFilterOfEachNode(t *testing.T) {
	nodes := []corev1.Node{
		// Cordoned and too small: NodeUnschedulable runs first and is the
		// one reported.
		ct.Node("a").Unschedulable().Allocatable(corev1.ResourceCPU, "1").Obj(),
		ct.Node("b").Allocatable(corev1.ResourceCPU, "1").Obj(),
		ct.Node("c").Obj(),
	}
	s := newSnapshot(t, nodes, []corev1.Pod{incomingPod().Requests("2", "").Obj()})
	res := defaultEngine(t).Schedule(s, incoming(t, s), Options{Explain: true})
	want := []NodeResult{
		{Name: "a", Plugin: nodeunschedulable.Name, Reason: "node(s) were unschedulable"},
		{Name: "b", Plugin: noderesources.FitName, Reason: "Insufficient cpu"},
		{Name: "c", Feasible: true},
	}
	if len(res.Nodes) != len(want) {
		t.Fatalf("got %d node results, want %d", len(res.Nodes), len(want))
	}
	for i, w := range want {
		got := res.Nodes[i]
		if got.Name != w.Name || got.Feasible != w.Feasible || got.Plugin != w.Plugin || got.Reason != w.Reason {
			t.Errorf("node %d: got %+v, want %+v", i, got, w)
		}
	}
	if res.Node != "c" || res.Feasible != 1 || res.Message != "" {
		t.Errorf("got node %q feasible %d message %q, want c, 1 and no message", res.Node, res.Feasible, res.Message)
	}
	if len(res.Nodes[2].Scores) == 0 {
		t.Errorf("the feasible node has no per-plugin scores")
	}
}

// An Accept that words its reason per node gives reasons that change from
// one node to the next; each is counted over every node that gave it, as
// kube-scheduler counts a FitError's reasons.
func TestMessageCountsManyDistinctAcceptReasons(t *testing.T) {
	var nodes []corev1.Node
	for i := range 40 {
		nodes = append(nodes, ct.Node(fmt.Sprintf("n%02d", i)).Obj())
	}
	s := newSnapshot(t, nodes, []corev1.Pod{incomingPod().Obj()})
	res := defaultEngine(t).Schedule(s, incoming(t, s), Options{
		Accept: func(n *cluster.Node) (bool, string) {
			// n00 and n20 share a reason, n01 and n21 too, and so on.
			i, _ := strconv.Atoi(n.Name[1:])
			return false, fmt.Sprintf("node(s) in rack %d", i%20)
		},
	})
	var parts []string
	for i := range 20 {
		parts = append(parts, fmt.Sprintf("2 node(s) in rack %d", i))
	}
	sort.Strings(parts)
	want := "0/40 nodes are available: " + strings.Join(parts, ", ") + "."
	if res.Message != want {
		t.Errorf("message\n %q\nwant\n %q", res.Message, want)
	}
}
