package highnodeutilization_test

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

func TestHighNodeUtilization(t *testing.T) {
	hnu := func(cpu int) string {
		return fmt.Sprintf("strategies:\n  HighNodeUtilization:\n    thresholds: {cpu: %d}\n", cpu)
	}
	tests := []struct {
		name   string
		objs   [][]any
		policy string
		want   []string
	}{
		{
			// The docs' example: a node under the thresholds is emptied
			// onto the others so that the autoscaler can remove it.
			name: "the least used node is emptied onto the most used one that can take its pods",
			objs: [][]any{
				{ct.Node("n1"), ct.Node("n2"), ct.Node("n3")},
				strategytest.CPUPods("n1", "a", "1"),           // 25%
				strategytest.CPUPods("n2", "b", "1", "1"),      // 50%: not under
				strategytest.CPUPods("n3", "c", "1", "1", "1"), // 75%
			},
			policy: hnu(50),
			want:   []string{"shop/a-n1-0 n1→n3"},
		},
		{
			// The descheduler does nothing here: no node is above the
			// thresholds to receive pods.
			name: "every node under the thresholds: the least used are packed onto the most used",
			objs: [][]any{
				{ct.Node("n1"), ct.Node("n2"), ct.Node("n3")},
				strategytest.CPUPods("n1", "a", "400m"), // 10%
				strategytest.CPUPods("n2", "b", "1"),    // 25%
				strategytest.CPUPods("n3", "c", "2"),    // 50%
			},
			policy: hnu(80),
			want:   []string{"shop/a-n1-0 n1→n3", "shop/b-n2-0 n2→n3"},
		},
		{
			// n1's 1-CPU pod is terminating: what stays is 25%, under the
			// threshold, and the live pod moves to the most used node.
			name: "terminating pods do not keep a node above the thresholds",
			objs: [][]any{
				{ct.Node("n1"), ct.Node("n2")},
				strategytest.CPUPods("n1", "a", "1"), // 25%
				{ct.DeploymentReplicaSet("shop", "old"), ct.Pod("shop", "old-0").On("n1").Requests("2", "").Deployment("old").Terminating()},
				strategytest.CPUPods("n2", "c", "2"), // 50%
			},
			policy: hnu(50),
			want:   []string{"shop/a-n1-0 n1→n2"},
		},
		{
			// a-n1-0 would fit on n2, a-n1-1 nowhere: a half-emptied node
			// saves nothing, so neither moves.
			name: "a node is emptied only when all its pods can go",
			objs: [][]any{
				{ct.Node("n1"), ct.Node("n2")},
				strategytest.CPUPods("n1", "a", "1500m", "1500m"), // 75%
				strategytest.CPUPods("n2", "b", "2500m"),          // 62.5%
			},
			policy: hnu(80),
		},
		{
			name: "a pod that may not be evicted keeps its node",
			objs: [][]any{
				{ct.Node("n1"), ct.Node("n2")},
				strategytest.CPUPods("n1", "a", "200m"),
				{ct.Pod("default", "debug").On("n1").Requests("100m", "")}, // bare
				strategytest.CPUPods("n2", "b", "2"),
			},
			policy: hnu(40),
		},
		{
			name: "a node that cannot be emptied takes the pods of one that can",
			objs: [][]any{
				{ct.Node("n1"), ct.Node("n2")},
				strategytest.CPUPods("n1", "a", "200m"),
				{ct.Pod("default", "debug").On("n1").Requests("100m", "")}, // bare
				strategytest.CPUPods("n2", "b", "2"),
			},
			policy: hnu(80),
			want:   []string{"shop/b-n2-0 n2→n1"},
		},
		{
			name: "DaemonSet pods stay with their node and do not keep it from being emptied",
			objs: [][]any{
				{ct.Node("n1"), ct.Node("n2")},
				strategytest.CPUPods("n1", "a", "200m"),
				{ct.Pod("monitoring", "exporter-n1").On("n1").Requests("50m", "").OwnedBy("DaemonSet", "exporter")},
				strategytest.CPUPods("n2", "b", "2"),
			},
			policy: hnu(80),
			want:   []string{"shop/a-n1-0 n1→n2"},
		},
		{
			name: "targets never go past what they can hold",
			objs: [][]any{
				{ct.Node("n1"), ct.Node("n2"), ct.Node("n3")},
				strategytest.CPUPods("n1", "a", "1", "1"),    // 50%
				strategytest.CPUPods("n2", "b", "1500m"),     // 37.5%
				strategytest.CPUPods("n3", "c", "3", "500m"), // 87.5%: takes nothing of 1 CPU
			},
			policy: hnu(60),
			// n2 first (least used): its 1.5 CPU fits only on n1 (50% →
			// 87.5%). n1 then has no target left.
			want: []string{"shop/b-n2-0 n2→n1"},
		},
		{
			name: "numberOfNodes: act only when more nodes than this are under-utilized",
			objs: [][]any{
				{ct.Node("n1"), ct.Node("n2")},
				strategytest.CPUPods("n1", "a", "400m"),
				strategytest.CPUPods("n2", "b", "3"),
			},
			policy: hnu(50) + "    numberOfNodes: 1\n",
		},
		{
			// The descheduler's OnlyThresholdingResources: the pod that
			// requests no cpu stays, and does not keep n1 from being
			// emptied of the others.
			name: "evictionModes OnlyThresholdingResources: pods without a request for the thresholds' resources stay",
			objs: [][]any{
				{ct.Node("n1"), ct.Node("n2")},
				strategytest.CPUPods("n1", "a", "200m"),
				{ct.DeploymentReplicaSet("shop", "sidecar"), ct.Pod("shop", "sidecar-0").On("n1").Requests("", "64Mi").Deployment("sidecar")},
				strategytest.CPUPods("n2", "b", "2"),
			},
			policy: hnu(50) + "    evictionModes: [OnlyThresholdingResources]\n",
			want:   []string{"shop/a-n1-0 n1→n2"},
		},
		{
			name: "without evictionModes every pod leaves",
			objs: [][]any{
				{ct.Node("n1"), ct.Node("n2")},
				strategytest.CPUPods("n1", "a", "200m"),
				{ct.DeploymentReplicaSet("shop", "sidecar"), ct.Pod("shop", "sidecar-0").On("n1").Requests("", "64Mi").Deployment("sidecar")},
				strategytest.CPUPods("n2", "b", "2"),
			},
			policy: hnu(50),
			want:   []string{"shop/a-n1-0 n1→n2", "shop/sidecar-0 n1→n2"},
		},
		{
			// A pod of an excluded namespace cannot leave, so n1 cannot be
			// emptied; n3, with none, is.
			name: "evictableNamespaces: a node with a pod that may not leave is not emptied",
			objs: [][]any{
				{ct.Node("n1"), ct.Node("n2"), ct.Node("n3")},
				strategytest.CPUPods("n1", "a", "200m"),
				{ct.DeploymentReplicaSet("system", "dns"), ct.Pod("system", "dns-0").On("n1").Requests("100m", "").Deployment("dns")},
				strategytest.CPUPods("n2", "b", "2"),
				strategytest.CPUPods("n3", "c", "400m"),
			},
			policy: hnu(50) + "    evictableNamespaces: {exclude: [system]}\n",
			want:   []string{"shop/c-n3-0 n3→n2"},
		},
		{
			// web tolerates n2's NoExecute taint for five minutes only:
			// kube-scheduler would admit it there and the taint manager
			// evict it. n3, less used, takes it.
			name: "a node whose NoExecute taint the pod tolerates only for a while is no target",
			objs: [][]any{
				{ct.Node("n1"), ct.Node("n2").Taint("maintenance", "", corev1.TaintEffectNoExecute), ct.Node("n3")},
				strategytest.Tolerating("n1", "web", 1, new(int64(300))), // 10%
				strategytest.Tolerating("n2", "db", 5, nil),              // 50%
				strategytest.CPUPods("n3", "c", "1200m"),                 // 30%
			},
			policy: hnu(20),
			want:   []string{"shop/web-n1-0 n1→n3"},
		},
		{
			// n1 is cordoned: it takes no pods, but its own go to n2, the
			// one node that takes any. n2's pod has nowhere to go (n3 is
			// cordoned as well), so n2 stays.
			name: "a cordoned node is emptied, and is never a target",
			objs: [][]any{
				{ct.Node("n1").Cordoned(), ct.Node("n2"), ct.Node("n3").Cordoned()},
				strategytest.CPUPods("n1", "a", "400m"),
				strategytest.CPUPods("n2", "b", "400m"),
				strategytest.CPUPods("n3", "c", "3"),
			},
			policy: hnu(50),
			want:   []string{"shop/a-n1-0 n1→n2"},
		},
		{
			// With one eviction allowed, the cordoned node goes before
			// the less used one: someone already chose it to go.
			name: "a cordoned node is the first to empty",
			objs: [][]any{
				{ct.Node("n1"), ct.Node("n2").Unschedulable(), ct.Node("n3")},
				strategytest.CPUPods("n1", "a", "400m"), // 10%
				strategytest.CPUPods("n2", "b", "1"),    // 25%, cordoned
				strategytest.CPUPods("n3", "c", "3"),    // 75%
			},
			policy: "limits: {total: 1}\n" + hnu(50),
			want:   []string{"shop/b-n2-0 n2→n3"},
		},
		{
			name: "node pools: each pool is compacted within itself with its own thresholds",
			objs: [][]any{
				{ct.Node("g1").Label("pool", "gpu"), ct.Node("g2").Label("pool", "gpu"), ct.Node("c1"), ct.Node("c2"), ct.Node("c3")},
				strategytest.CPUPods("g1", "train", "400m"), // 10%
				strategytest.CPUPods("g2", "infer", "1"),    // 25%
				strategytest.CPUPods("c1", "web", "800m"),   // 20%: not under the top-level 15%
				strategytest.CPUPods("c2", "api", "400m"),   // 10%
				strategytest.CPUPods("c3", "db", "3"),       // 75%
			},
			policy: "strategies:\n  HighNodeUtilization:\n    thresholds: {cpu: 15}\n    nodePools:\n" +
				"    - name: gpu\n      nodeSelector: {matchLabels: {pool: gpu}}\n      thresholds: {cpu: 50}\n",
			want: []string{"shop/api-c2-0 c2→c3", "shop/train-g1-0 g1→g2"},
		},
		{
			name: "node pools: nodes of no pool are left alone without top-level thresholds",
			objs: [][]any{
				{ct.Node("g1").Label("pool", "gpu"), ct.Node("g2").Label("pool", "gpu"), ct.Node("c2"), ct.Node("c3")},
				strategytest.CPUPods("g1", "train", "400m"),
				strategytest.CPUPods("g2", "infer", "1"),
				strategytest.CPUPods("c2", "api", "400m"),
				strategytest.CPUPods("c3", "db", "3"),
			},
			policy: "strategies:\n  HighNodeUtilization:\n    nodePools:\n" +
				"    - name: gpu\n      nodeSelector: {matchLabels: {pool: gpu}}\n      thresholds: {cpu: 50}\n",
			want: []string{"shop/train-g1-0 g1→g2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := strategytest.Objects(tt.objs...)
			p := strategytest.Plan(t, strategytest.Build(t, objs), tt.policy)
			strategytest.Equal(t, "moves", strategytest.Moves(p), tt.want)
			// Emptying is stable: with the moves done, nothing more to do.
			again := strategytest.Plan(t, strategytest.AfterPlan(t, objs, p), tt.policy)
			strategytest.Equal(t, "moves of the next run", strategytest.Moves(again), nil)
		})
	}
}

// Pods other strategies move stay off the nodes HighNodeUtilization
// empties: moved there, they could not leave again this cycle, and the next
// cycle would have to move them once more.
func TestGuardKeepsPodsOffNodesBeingEmptied(t *testing.T) {
	objs := [][]any{
		{ct.Node("t").Taint("dedicated", "gpu", corev1.TaintEffectNoSchedule), ct.Node("e"), ct.Node("f")},
		strategytest.CPUPods("t", "v", "1"),    // 25%, does not tolerate the taint
		strategytest.CPUPods("e", "x", "200m"), // 5%
		strategytest.CPUPods("f", "y", "2"),    // 50%
	}
	taints := "strategies:\n  RemovePodsViolatingNodeTaints: {}\n"
	// The scheduler's LeastAllocated scoring sends v to the idlest node.
	strategytest.Equal(t, "taints alone", strategytest.Moves(strategytest.Plan(t, strategytest.Snapshot(t, objs...), taints)), []string{"shop/v-t-0 t→e"})
	policy := taints + "  HighNodeUtilization:\n    thresholds: {cpu: 60}\n"
	all := strategytest.Objects(objs...)
	p := strategytest.Plan(t, strategytest.Build(t, all), policy)
	strategytest.Equal(t, "with HighNodeUtilization", strategytest.Moves(p), []string{"shop/v-t-0 t→f", "shop/x-e-0 e→f"})
	strategytest.Equal(t, "moves of the next run", strategytest.Moves(strategytest.Plan(t, strategytest.AfterPlan(t, all, p), policy)), nil)
}

// With replacements predicted, kube-scheduler's default scoring
// (LeastAllocated) would put n1's pods back on n1 once it is emptier than
// the others: emptying it would disrupt them for nothing, and no pod moves,
// rather than some of them.
func TestHighNodeUtilizationPredictedReplacements(t *testing.T) {
	objs := [][]any{
		{ct.Node("n1"), ct.Node("n2")},
		strategytest.CPUPods("n1", "a", "500m", "500m"), // 25%
		strategytest.CPUPods("n2", "c", "2"),            // 50%
	}
	policy := "strategies:\n  HighNodeUtilization:\n    thresholds: {cpu: 50}\n"
	strategytest.Equal(t, "steered", strategytest.Moves(strategytest.Plan(t, strategytest.Snapshot(t, objs...), policy)), []string{"shop/a-n1-0 n1→n2", "shop/a-n1-1 n1→n2"})
	predicted := strategytest.Plan(t, strategytest.Snapshot(t, objs...), "replacements: predicted\n"+policy)
	strategytest.Equal(t, "predicted", strategytest.Moves(predicted), nil)
	// The run says why nothing moved: the pod that would have come back,
	// and the node that stays.
	var skipped, notes []string
	for _, s := range predicted.Skipped {
		skipped = append(skipped, fmt.Sprintf("%s %s: %s", s.Pod, s.Category, s.Reason))
	}
	for _, n := range predicted.Notes {
		notes = append(notes, n.Node+": "+n.Text)
	}
	strategytest.Equal(t, "skipped", skipped, []string{"shop/a-n1-1 futile: would have its replacement put back on n1 by its scheduler"})
	strategytest.Equal(t, "notes", notes, []string{"n1: not emptied: shop/a-n1-1 would have its replacement put back on n1 by its scheduler"})
}

// A node whose pods cannot all leave stays, and the report says which pod
// keeps it there and why.
func TestHighNodeUtilizationSaysWhyANodeStays(t *testing.T) {
	objs := [][]any{
		{ct.Node("n1"), ct.Node("n2")},
		strategytest.CPUPods("n1", "a", "1500m"),  // 37.5%
		strategytest.CPUPods("n2", "c", "2", "1"), // 75%: 1 CPU left
	}
	plan := strategytest.Plan(t, strategytest.Snapshot(t, objs...), "strategies:\n  HighNodeUtilization:\n    thresholds: {cpu: 50}\n")
	var skipped, notes []string
	for _, s := range plan.Skipped {
		skipped = append(skipped, fmt.Sprintf("%s %s: %s", s.Pod, s.Category, s.Reason))
	}
	for _, n := range plan.Notes {
		notes = append(notes, n.Node+": "+n.Text)
	}
	strategytest.Equal(t, "moves", strategytest.Moves(plan), nil)
	strategytest.Equal(t, "skipped", skipped, []string{"shop/a-n1-0 no-fit: fits on no node HighNodeUtilization packs onto"})
	strategytest.Equal(t, "notes", notes, []string{"n1: not emptied: shop/a-n1-0 fits on no node HighNodeUtilization packs onto"})
}

// A node the cluster autoscaler or Karpenter is told to keep is not
// emptied: it would stay, empty, and free nothing. It still takes pods.
func TestHighNodeUtilizationLeavesNodesTheAutoscalerKeeps(t *testing.T) {
	tests := []struct {
		name       string
		annotation string
		want       []string
		note       string
	}{
		{"cluster autoscaler: scale-down disabled", "cluster-autoscaler.kubernetes.io/scale-down-disabled",
			[]string{"shop/b-n2-0 n2→n3"},
			`n1: not emptied: annotated cluster-autoscaler.kubernetes.io/scale-down-disabled: "true": the cluster autoscaler keeps it, so emptying it frees nothing`},
		{"Karpenter: do-not-disrupt", "karpenter.sh/do-not-disrupt",
			[]string{"shop/b-n2-0 n2→n3"},
			`n1: not emptied: annotated karpenter.sh/do-not-disrupt: "true": Karpenter keeps it, so emptying it frees nothing`},
		{"no annotation", "", []string{"shop/a-n1-0 n1→n3", "shop/b-n2-0 n2→n3"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n1 := ct.Node("n1")
			if tt.annotation != "" {
				n1 = n1.Annotate(tt.annotation, "true")
			}
			objs := [][]any{
				{n1, ct.Node("n2"), ct.Node("n3")},
				strategytest.CPUPods("n1", "a", "400m"), // 10%
				strategytest.CPUPods("n2", "b", "1"),    // 25%
				strategytest.CPUPods("n3", "c", "2"),    // 50%
			}
			plan := strategytest.Plan(t, strategytest.Snapshot(t, objs...), "strategies:\n  HighNodeUtilization:\n    thresholds: {cpu: 80}\n")
			strategytest.Equal(t, "moves", strategytest.Moves(plan), tt.want)
			var notes []string
			for _, n := range plan.Notes {
				if n.Node == "n1" {
					notes = append(notes, n.Node+": "+n.Text)
				}
			}
			var want []string
			if tt.note != "" {
				want = []string{tt.note}
			}
			strategytest.Equal(t, "notes", notes, want)
		})
	}
}

// A node one of whose pods the planner would not evict stays, and the pod
// is skipped for the planner's reason beside the node's note; the plan
// does not say it again as a strategy that moved nothing.
func TestHighNodeUtilizationSkipsThePodThatKeepsANode(t *testing.T) {
	objs := [][]any{
		{ct.Node("n1"), ct.Node("n2"), ct.Pod("shop", "a-n1-1").On("n1").Requests("500m", "").Deployment("a").Annotate("rebalancer.dev/evict", "false")},
		strategytest.CPUPods("n1", "a", "500m"), // 25% with the pod above
		strategytest.CPUPods("n2", "c", "2"),    // 50%
	}
	plan := strategytest.Plan(t, strategytest.Snapshot(t, objs...), "strategies:\n  HighNodeUtilization:\n    thresholds: {cpu: 50}\n")
	var skipped, notes []string
	for _, s := range plan.Skipped {
		skipped = append(skipped, fmt.Sprintf("%s %s", s.Pod, s.Category))
	}
	for _, n := range plan.Notes {
		notes = append(notes, n.Node+": "+n.Text)
	}
	strategytest.Equal(t, "moves", strategytest.Moves(plan), nil)
	strategytest.Equal(t, "skipped", skipped, []string{"shop/a-n1-1 opted-out"})
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "n1: not emptied: shop/a-n1-1: ") {
		t.Errorf("notes = %q, want n1's alone", notes)
	}
}
