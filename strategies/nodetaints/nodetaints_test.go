package nodetaints_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

func TestRemovePodsViolatingNodeTaints(t *testing.T) {
	web := func(name, node string) *ct.PodBuilder {
		return ct.Pod("shop", name).On(node).Requests("100m", "64Mi").Deployment("web")
	}
	const noSchedule, preferNo, noExecute = corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute
	tests := []struct {
		name   string
		objs   []any
		policy string
		want   []string // "pod from→to"
		reason string   // the first move's reason, when set
	}{
		{
			// The docs' example: a node is tainted after its pods were
			// scheduled; those that do not tolerate the taint move.
			name: "a taint added after scheduling moves the pods that do not tolerate it",
			objs: []any{ct.Node("a").Taint("dedicated", "gpu", noSchedule), ct.Node("b"),
				web("web-0", "a"), web("web-1", "b"),
				web("train-0", "a").Tolerate("dedicated", "gpu", noSchedule)},
			want:   []string{"shop/web-0 a→b"},
			reason: "untolerated taint dedicated=gpu:NoSchedule on a",
		},
		{
			name: "a toleration with operator Exists and no effect tolerates the taint",
			objs: []any{ct.Node("a").Taint("dedicated", "gpu", noSchedule), ct.Node("b"),
				web("web-0", "a").Tolerate("dedicated", "", "")},
		},
		{
			name: "NoExecute is the kubelet's job and PreferNoSchedule is off by default",
			objs: []any{ct.Node("a").Taint("evict", "now", noExecute), ct.Node("b").Taint("avoid", "", preferNo), ct.Node("c"),
				web("web-0", "a"), web("web-1", "b")},
		},
		{
			name:   "includePreferNoSchedule acts on PreferNoSchedule taints",
			objs:   []any{ct.Node("b").Taint("avoid", "", preferNo), ct.Node("c"), web("web-1", "b")},
			policy: "strategies:\n  RemovePodsViolatingNodeTaints: {includePreferNoSchedule: true}\n",
			want:   []string{"shop/web-1 b→c"},
			reason: "untolerated taint avoid:PreferNoSchedule on b",
		},
		{
			name:   "excludedTaints by key ignores every value of the key",
			objs:   []any{ct.Node("a").Taint("dedicated", "gpu", noSchedule), ct.Node("b"), web("web-0", "a")},
			policy: "strategies:\n  RemovePodsViolatingNodeTaints: {excludedTaints: [dedicated]}\n",
		},
		{
			name:   "excludedTaints key=value ignores only that value",
			objs:   []any{ct.Node("a").Taint("dedicated", "gpu", noSchedule), ct.Node("b"), web("web-0", "a")},
			policy: "strategies:\n  RemovePodsViolatingNodeTaints: {excludedTaints: [dedicated=infra]}\n",
			want:   []string{"shop/web-0 a→b"},
		},
		{
			name: "includedTaints acts only on the listed taints",
			objs: []any{ct.Node("a").Taint("maintenance", "", noSchedule), ct.Node("b").Taint("dedicated", "gpu", noSchedule), ct.Node("c"),
				web("web-0", "a"), web("web-1", "b")},
			policy: "strategies:\n  RemovePodsViolatingNodeTaints: {includedTaints: [dedicated=gpu]}\n",
			want:   []string{"shop/web-1 b→c"},
		},
		{
			// The node lifecycle controller taints a node under memory
			// pressure; the kubelet evicts pods of its choosing. Moving every
			// pod that does not tolerate the taint would be a stampede.
			name: "the taints of node conditions are excluded by default",
			objs: []any{ct.Node("a").Taint(corev1.TaintNodeMemoryPressure, "", noSchedule), ct.Node("b").Taint(corev1.TaintNodeDiskPressure, "", noSchedule),
				ct.Node("c").Taint(corev1.TaintNodePIDPressure, "", noSchedule), ct.Node("d").Taint(corev1.TaintNodeNetworkUnavailable, "", noSchedule),
				ct.Node("e"), web("web-0", "a"), web("web-1", "b"), web("web-2", "c"), web("web-3", "d")},
		},
		{
			name: "a condition taint beside another: the other one moves the pod",
			objs: []any{ct.Node("a").Taint(corev1.TaintNodeMemoryPressure, "", noSchedule).Taint("dedicated", "gpu", noSchedule), ct.Node("b"),
				web("web-0", "a")},
			want:   []string{"shop/web-0 a→b"},
			reason: "untolerated taint dedicated=gpu:NoSchedule on a",
		},
		{
			name:   "includedTaints naming a condition taint acts on it",
			objs:   []any{ct.Node("a").Taint(corev1.TaintNodeDiskPressure, "", noSchedule), ct.Node("b"), web("web-0", "a")},
			policy: "strategies:\n  RemovePodsViolatingNodeTaints: {includedTaints: [node.kubernetes.io/disk-pressure]}\n",
			want:   []string{"shop/web-0 a→b"},
			reason: "untolerated taint node.kubernetes.io/disk-pressure:NoSchedule on a",
		},
		{
			// excludedTaints is the whole list of what is excluded, as in
			// the descheduler: the condition taints are no longer in it.
			name: "excludedTaints replaces the default exclusions",
			objs: []any{ct.Node("a").Taint(corev1.TaintNodeMemoryPressure, "", noSchedule), ct.Node("b").Taint("dedicated", "gpu", noSchedule), ct.Node("c"),
				web("web-0", "a"), web("web-1", "b")},
			policy: "strategies:\n  RemovePodsViolatingNodeTaints: {excludedTaints: [dedicated]}\n",
			want:   []string{"shop/web-0 a→c"},
		},
		{
			// The descheduler matches "key=value" only against a taint
			// with a value.
			name:   "a key=value entry does not match a taint without a value",
			objs:   []any{ct.Node("a").Taint("maintenance", "", noSchedule), ct.Node("b"), web("web-0", "a")},
			policy: "strategies:\n  RemovePodsViolatingNodeTaints: {excludedTaints: [maintenance=]}\n",
			want:   []string{"shop/web-0 a→b"},
		},
		{
			name: "namespaces and labelSelector limit the strategy",
			objs: []any{ct.Node("a").Taint("dedicated", "gpu", noSchedule), ct.Node("b"),
				web("web-0", "a"), web("web-1", "a").Label("tier", "db"), ct.DeploymentReplicaSet("blog", "web"),
				ct.Pod("blog", "web-0").On("a").Requests("100m", "").Deployment("web")},
			policy: "strategies:\n  RemovePodsViolatingNodeTaints:\n    namespaces: {include: [shop]}\n    labelSelector: {matchLabels: {tier: db}}\n",
			want:   []string{"shop/web-1 a→b"},
		},
		{
			name: "a cordoned node is left to whoever cordoned it",
			objs: []any{ct.Node("a").Cordoned(), ct.Node("b"), web("web-0", "a")},
		},
		{
			name:   "including the cordon taint drains cordoned nodes, as the descheduler does",
			objs:   []any{ct.Node("a").Cordoned(), ct.Node("b"), web("web-0", "a")},
			policy: "strategies:\n  RemovePodsViolatingNodeTaints: {includedTaints: [node.kubernetes.io/unschedulable]}\n",
			want:   []string{"shop/web-0 a→b"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			policy := tt.policy
			if policy == "" {
				policy = "strategies:\n  RemovePodsViolatingNodeTaints: {}\n"
			}
			p := strategytest.Plan(t, ct.Snapshot(t, append([]any{ct.DeploymentReplicaSet("shop", "web")}, tt.objs...)...), policy)
			strategytest.Equal(t, "moves", strategytest.Moves(p), tt.want)
			if tt.reason != "" && len(p.Moves) > 0 && p.Moves[0].Reason != tt.reason {
				t.Errorf("reason %q, want %q", p.Moves[0].Reason, tt.reason)
			}
		})
	}
}

// A violating pod that no other node takes stays, and the plan says why in
// the scheduler's words.
func TestNodeTaintsNoTarget(t *testing.T) {
	snap := ct.Snapshot(t, ct.DeploymentReplicaSet("shop", "web"),
		ct.Node("a").Taint("dedicated", "gpu", corev1.TaintEffectNoSchedule), ct.Node("b").Taint("dedicated", "gpu", corev1.TaintEffectNoSchedule),
		ct.Pod("shop", "web-0").On("a").Requests("100m", "").Deployment("web"))
	p := strategytest.Plan(t, snap, "strategies:\n  RemovePodsViolatingNodeTaints: {}\n")
	strategytest.Equal(t, "moves", strategytest.Moves(p), nil)
	if len(p.Skipped) != 1 || !strings.Contains(p.Skipped[0].Reason, "untolerated taint {dedicated: gpu}") {
		t.Errorf("skipped %+v, want web-0 with the scheduler's reason", p.Skipped)
	}
}

// With includePreferNoSchedule, the guard keeps every strategy's moves off
// nodes whose PreferNoSchedule taint the pod does not tolerate: otherwise
// the taint strategy would move the pod again on the next run.
func TestGuardKeepsPodsOffPreferNoScheduleTaints(t *testing.T) {
	objs := []any{ct.DeploymentReplicaSet("shop", "web"), ct.Node("n1"), ct.Node("n2").Taint("avoid", "", corev1.TaintEffectPreferNoSchedule), ct.Node("n3")}
	for _, name := range []string{"web-0", "web-1", "web-2"} {
		objs = append(objs, ct.Pod("shop", name).On("n1").Requests("100m", "").Deployment("web"))
	}
	// Three replicas, three nodes: one each. RemoveDuplicates alone fills
	// n3 and then n2.
	alone := strategytest.Plan(t, ct.Snapshot(t, objs...), "strategies:\n  RemoveDuplicates: {}\n")
	strategytest.Equal(t, "RemoveDuplicates alone", strategytest.MovedTo(alone), []string{"n2", "n3"})
	both := strategytest.Plan(t, ct.Snapshot(t, objs...), "strategies:\n  RemoveDuplicates: {}\n  RemovePodsViolatingNodeTaints: {includePreferNoSchedule: true}\n")
	strategytest.Equal(t, "with the taint strategy", strategytest.MovedTo(both), []string{"n3"})
}
