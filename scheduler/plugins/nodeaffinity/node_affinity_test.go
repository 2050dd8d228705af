package nodeaffinity_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/nodeaffinity"
	"github.com/kube-rebalancer/rebalancer/scheduler/schedulertest"
)

// The cases follow https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/.
func TestNodeAffinityFilter(t *testing.T) {
	nodes := []corev1.Node{
		ct.Node("east-ssd").Zone("antarctica-east1").Label("disktype", "ssd").Label("cores", "8").Obj(),
		ct.Node("west-hdd").Zone("antarctica-west1").Label("disktype", "hdd").Label("cores", "4").Obj(),
		ct.Node("north").Zone("arctic-1").Label("cores", "2").Obj(),
	}
	tests := []struct {
		name     string
		pod      *ct.PodBuilder
		feasible []string
		message  string
	}{{
		name:     "nodeSelector disktype: ssd",
		pod:      schedulertest.IncomingPod().NodeSelector("disktype", "ssd"),
		feasible: []string{"east-ssd"},
	}, {
		name:     "required zone In [antarctica-east1, antarctica-west1]",
		pod:      schedulertest.IncomingPod().RequireNodeAffinity(ct.NodeSelectorTerm(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, "antarctica-east1", "antarctica-west1")),
		feasible: []string{"east-ssd", "west-hdd"},
	}, {
		name:     "NotIn is anti-affinity",
		pod:      schedulertest.IncomingPod().RequireNodeAffinity(ct.NodeSelectorTerm(corev1.LabelTopologyZone, corev1.NodeSelectorOpNotIn, "antarctica-east1")),
		feasible: []string{"north", "west-hdd"},
	}, {
		name:     "Exists",
		pod:      schedulertest.IncomingPod().RequireNodeAffinity(ct.NodeSelectorTerm("disktype", corev1.NodeSelectorOpExists)),
		feasible: []string{"east-ssd", "west-hdd"},
	}, {
		name:     "DoesNotExist",
		pod:      schedulertest.IncomingPod().RequireNodeAffinity(ct.NodeSelectorTerm("disktype", corev1.NodeSelectorOpDoesNotExist)),
		feasible: []string{"north"},
	}, {
		name:     "Gt compares the label as an integer",
		pod:      schedulertest.IncomingPod().RequireNodeAffinity(ct.NodeSelectorTerm("cores", corev1.NodeSelectorOpGt, "3")),
		feasible: []string{"east-ssd", "west-hdd"},
	}, {
		name:     "Lt compares the label as an integer",
		pod:      schedulertest.IncomingPod().RequireNodeAffinity(ct.NodeSelectorTerm("cores", corev1.NodeSelectorOpLt, "4")),
		feasible: []string{"north"},
	}, {
		name:     "nodeSelectorTerms are ORed",
		pod:      schedulertest.IncomingPod().RequireNodeAffinity(ct.NodeSelectorTerm("disktype", corev1.NodeSelectorOpIn, "ssd"), ct.NodeSelectorTerm(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, "arctic-1")),
		feasible: []string{"east-ssd", "north"},
	}, {
		name: "matchExpressions of one term are ANDed",
		pod: schedulertest.IncomingPod().RequireNodeAffinity(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: "disktype", Operator: corev1.NodeSelectorOpExists},
			{Key: "cores", Operator: corev1.NodeSelectorOpLt, Values: []string{"5"}},
		}}),
		feasible: []string{"west-hdd"},
	}, {
		name: "nodeSelector and node affinity must both match",
		pod: schedulertest.IncomingPod().NodeSelector("disktype", "hdd").
			RequireNodeAffinity(ct.NodeSelectorTerm(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, "antarctica-east1")),
		message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
	}, {
		name: "matchFields on metadata.name, as DaemonSet pods use, checks only the named node",
		pod: schedulertest.IncomingPod().RequireNodeAffinity(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{
			{Key: metav1.ObjectNameField, Operator: corev1.NodeSelectorOpIn, Values: []string{"west-hdd"}},
		}}),
		feasible: []string{"west-hdd"},
	}, {
		name: "matchFields naming a node that fails the other filters",
		pod: schedulertest.IncomingPod().NodeSelector("disktype", "ssd").
			RequireNodeAffinity(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{
				{Key: metav1.ObjectNameField, Operator: corev1.NodeSelectorOpIn, Values: []string{"west-hdd"}},
			}}),
		message: "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) didn't satisfy plugin(s) [NodeAffinity].",
	}, {
		name: "matchFields requirements that no name satisfies",
		pod: schedulertest.IncomingPod().RequireNodeAffinity(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{
			{Key: metav1.ObjectNameField, Operator: corev1.NodeSelectorOpIn, Values: []string{"west-hdd"}},
			{Key: metav1.ObjectNameField, Operator: corev1.NodeSelectorOpIn, Values: []string{"north"}},
		}}),
		message: "0/3 nodes are available: pod affinity terms conflict.",
	}, {
		name: "matchFields NotIn",
		pod: schedulertest.IncomingPod().RequireNodeAffinity(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{
			{Key: metav1.ObjectNameField, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"west-hdd"}},
		}}),
		feasible: []string{"east-ssd", "north"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := schedulertest.NewSnapshot(t, nodes, []corev1.Pod{tc.pod.Obj()})
			e := schedulertest.DefaultEngine(t)
			got := schedulertest.FeasibleNodes(t, e, s)
			if !slices.Equal(got, tc.feasible) {
				t.Errorf("feasible %v, want %v", got, tc.feasible)
			}
			if res := e.Schedule(s, schedulertest.Incoming(t, s), engine.Options{}); res.Message != tc.message {
				t.Errorf("message\n %q\nwant\n %q", res.Message, tc.message)
			}
		})
	}
}

func TestNodeAffinityPreferredTermsByWeight(t *testing.T) {
	// The docs' weight example: both nodes pass the required term; the one
	// with label-2=key-2 (weight 50) beats the one with label-1=key-1
	// (weight 1).
	nodes := []corev1.Node{
		ct.Node("node-label-1").Label(corev1.LabelOSStable, "linux").Label("label-1", "key-1").Obj(),
		ct.Node("node-label-2").Label(corev1.LabelOSStable, "linux").Label("label-2", "key-2").Obj(),
		ct.Node("windows").Label(corev1.LabelOSStable, "windows").Label("label-2", "key-2").Obj(),
	}
	pod := schedulertest.IncomingPod().
		RequireNodeAffinity(ct.NodeSelectorTerm(corev1.LabelOSStable, corev1.NodeSelectorOpIn, "linux")).
		PreferNodeAffinity(1, ct.NodeSelectorTerm("label-1", corev1.NodeSelectorOpIn, "key-1")).
		PreferNodeAffinity(50, ct.NodeSelectorTerm("label-2", corev1.NodeSelectorOpIn, "key-2")).Obj()
	s := schedulertest.NewSnapshot(t, nodes, []corev1.Pod{pod})
	res := schedulertest.DefaultEngine(t).Schedule(s, schedulertest.Incoming(t, s), engine.Options{Explain: true})
	if res.Node != "node-label-2" || res.RunnerUp != "node-label-1" {
		t.Fatalf("chose %q then %q, want node-label-2 then node-label-1", res.Node, res.RunnerUp)
	}
	// Raw scores 1 and 50, normalized to the highest: 1*100/50 = 2 and 100.
	if a, b := res.Nodes[0].Scores[nodeaffinity.Name], res.Nodes[1].Scores[nodeaffinity.Name]; a != 2 || b != 100 {
		t.Errorf("NodeAffinity scores %d and %d, want 2 and 100", a, b)
	}
	// NodeAffinity weighs 2: the difference in totals is at least
	// 2*(100-2) minus what the other plugins can differ by, which is
	// nothing on identical empty nodes.
	if diff := res.Score - res.RunnerUpScore; diff != 2*(100-2) {
		t.Errorf("score difference %d, want %d", diff, 2*(100-2))
	}
}
