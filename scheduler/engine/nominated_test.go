package engine

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/noderesources"
)

// running is a bound pod of the given priority asking for cpu, started
// startedAgo before the snapshot.
func running(name, node string, priority int32, cpu string, startedAgo time.Duration) *ct.PodBuilder {
	return ct.Pod("default", name).On(node).Priority(priority).Requests(cpu, "1Gi").Edit(func(p *corev1.Pod) {
		p.Status.StartTime = &metav1.Time{Time: ct.Now.Add(-startedAgo)}
	})
}

// preemptor is the pending pod "incoming" of the given priority asking for
// cpu.
func preemptor(priority int32, cpu string) *ct.PodBuilder {
	return ct.Pod("default", "incoming").Pending().Priority(priority).Requests(cpu, "1Gi")
}

// nominated is a pending pod of the given priority asking for cpu, that a
// preemption nominated to node.
func nominated(name, node string, priority int32, cpu string) *ct.PodBuilder {
	return ct.Pod("default", name).Pending().Priority(priority).Requests(cpu, "1Gi").Edit(func(p *corev1.Pod) {
		p.Status.NominatedNodeName = node
	})
}

func TestNominatedPodsHoldTheirNode(t *testing.T) {
	cases := []struct {
		name    string
		objs    []any
		node    string
		message string
	}{
		{
			name: "a pod of lower priority does not take what a nominated pod waits for",
			objs: []any{ct.Node("a"), running("half", "a", 1, "2", time.Hour), nominated("waiting", "a", 100, "2"),
				preemptor(50, "2")},
			message: "0/1 nodes are available: 1 Insufficient cpu.",
		},
		{
			name: "a pod of equal priority does not take it either",
			objs: []any{ct.Node("a"), running("half", "a", 1, "2", time.Hour), nominated("waiting", "a", 100, "2"),
				preemptor(100, "2")},
			message: "0/1 nodes are available: 1 Insufficient cpu.",
		},
		{
			name: "a pod of higher priority may take it",
			objs: []any{ct.Node("a"), running("half", "a", 1, "2", time.Hour), nominated("waiting", "a", 100, "2"),
				preemptor(200, "2")},
			node: "a",
		},
		{
			name: "what is left beside the nominated pod stays free",
			objs: []any{ct.Node("a"), running("quarter", "a", 1, "1", time.Hour), nominated("waiting", "a", 100, "1"),
				preemptor(50, "2")},
			node: "a",
		},
		{
			name: "a nominated pod holds only its own node",
			objs: []any{ct.Node("a"), ct.Node("b"), running("a-half", "a", 1, "2", time.Hour), running("b-full", "b", 1, "4", time.Hour),
				nominated("waiting", "b", 100, "2"), preemptor(50, "2")},
			node: "a",
		},
		{
			name: "a nominated pod being deleted holds nothing",
			objs: []any{ct.Node("a"), running("half", "a", 1, "2", time.Hour), nominated("waiting", "a", 100, "2").Terminating(),
				preemptor(50, "2")},
			node: "a",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := ct.Snapshot(t, tc.objs...)
			res := defaultEngine(t).Schedule(s, incoming(t, s), Options{})
			if res.Node != tc.node || res.Message != tc.message {
				t.Errorf("Schedule chose %q with message %q; want %q with %q", res.Node, res.Message, tc.node, tc.message)
			}
		})
	}
}

func TestNominatedPodsAreExplained(t *testing.T) {
	s := ct.Snapshot(t, ct.Node("a"), running("half", "a", 1, "2", time.Hour), nominated("waiting", "a", 100, "2"), preemptor(50, "2"))
	res := defaultEngine(t).Schedule(s, incoming(t, s), Options{Explain: true})
	if len(res.Nodes) != 1 || res.Nodes[0].Plugin != noderesources.FitName || res.Nodes[0].Reason != noderesources.ErrReasonInsufficientCPU {
		t.Errorf("node a is explained as %+v; want NodeResourcesFit's Insufficient cpu, with the nominated pod's request", res.Nodes)
	}
}

func TestANominatedPodGoesToItsNodeFirst(t *testing.T) {
	// Node b scores worse (busier) but is where the pod was nominated: it
	// fits there, so kube-scheduler binds it there without scoring.
	objs := []any{ct.Node("a"), ct.Node("b"), running("b-some", "b", 1, "2", time.Hour)}
	s := ct.Snapshot(t, append(objs, preemptor(100, "1").Edit(func(p *corev1.Pod) { p.Status.NominatedNodeName = "b" }))...)
	if res := defaultEngine(t).Schedule(s, incoming(t, s), Options{}); res.Node != "b" {
		t.Errorf("the pod nominated to b went to %q", res.Node)
	}
	s = ct.Snapshot(t, append(objs, preemptor(100, "1"))...)
	if res := defaultEngine(t).Schedule(s, incoming(t, s), Options{}); res.Node != "a" {
		t.Errorf("without a nomination the pod went to %q; the case needs a to score better", res.Node)
	}
	s = ct.Snapshot(t, append(objs, preemptor(100, "3").Edit(func(p *corev1.Pod) { p.Status.NominatedNodeName = "b" }))...)
	if res := defaultEngine(t).Schedule(s, incoming(t, s), Options{}); res.Node != "a" {
		t.Errorf("the pod nominated to b, where it no longer fits, went to %q; want a", res.Node)
	}
	// A bound pod that kube-scheduler recorded as nominated to its node,
	// taken off it by the planner, is placed as a new pod would be.
	s = ct.Snapshot(t, append(objs, preemptor(100, "1").On("b").Phase(corev1.PodRunning).Edit(func(p *corev1.Pod) { p.Status.NominatedNodeName = "b" }))...)
	moved := incoming(t, s)
	s.Remove(moved)
	if res := defaultEngine(t).Schedule(s, moved, Options{}); res.Node != "a" {
		t.Errorf("a bound pod nominated to its own node b, taken off it, went to %q; want a, as for a new pod", res.Node)
	}
}
