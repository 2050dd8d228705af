package strategies_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

func TestLowNodeUtilizationNodePools(t *testing.T) {
	gpuPool := "    nodePools:\n    - name: gpu\n      nodeSelector: {matchLabels: {pool: gpu}}\n" +
		"      thresholds: {cpu: 20}\n      targetThresholds: {cpu: 50}\n"
	objs := [][]any{
		{ct.Node("g1").Label("pool", "gpu"), ct.Node("g2").Label("pool", "gpu"), ct.Node("c1"), ct.Node("c2")},
		strategytest.CPUPods("g1", "train", "500m", "500m", "500m", "500m", "500m", "500m"),               // 75%
		strategytest.CPUPods("c1", "web", "200m", "200m", "200m", "200m", "200m", "200m", "200m", "200m"), // 40%
	}
	tests := []struct {
		name   string
		policy string
		want   []string
	}{
		{
			// gpu: above 50% moves until 50%: two pods. The other nodes:
			// above 30% moves until 30%: two pods. No pod changes pool.
			name:   "each pool is balanced within itself, with its own thresholds",
			policy: "strategies:\n  LowNodeUtilization:\n    thresholds: {cpu: 10}\n    targetThresholds: {cpu: 30}\n" + gpuPool,
			want:   []string{"shop/train-g1-0 g1→g2", "shop/train-g1-1 g1→g2", "shop/web-c1-0 c1→c2", "shop/web-c1-1 c1→c2"},
		},
		{
			name:   "nodes of no pool are left alone without top-level thresholds",
			policy: "strategies:\n  LowNodeUtilization:\n" + gpuPool,
			want:   []string{"shop/train-g1-0 g1→g2", "shop/train-g1-1 g1→g2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			all := strategytest.Objects(objs...)
			p := strategytest.Plan(t, strategytest.Build(t, all), tt.policy)
			strategytest.Equal(t, "moves", strategytest.Moves(p), tt.want)
			strategytest.Equal(t, "moves of the next run", strategytest.Moves(strategytest.Plan(t, strategytest.AfterPlan(t, all, p), tt.policy)), nil)
		})
	}
}

// The guard holds a move to the target thresholds of the target's own
// pool: g2 would be within the top-level target (90%) but not within the
// gpu pool's (50%).
func TestGuardUsesEachNodePoolsThresholds(t *testing.T) {
	objs := strategytest.Objects(
		[]any{ct.Node("t").Label("pool", "gpu").Taint("maintenance", "", corev1.TaintEffectNoSchedule), ct.Node("g2").Label("pool", "gpu"), ct.Node("c1")},
		strategytest.CPUPods("t", "v", "500m"),
		strategytest.CPUPods("g2", "infer", "1800m"), // 45%
		strategytest.CPUPods("c1", "web", "2400m"),   // 60%
	)
	taints := "strategies:\n  RemovePodsViolatingNodeTaints: {}\n"
	strategytest.Equal(t, "taints alone", strategytest.Moves(strategytest.Plan(t, strategytest.Build(t, objs), taints)), []string{"shop/v-t-0 t→g2"})
	policy := taints + "  LowNodeUtilization:\n    thresholds: {cpu: 20}\n    targetThresholds: {cpu: 90}\n" +
		"    nodePools:\n    - name: gpu\n      nodeSelector: {matchLabels: {pool: gpu}}\n      thresholds: {cpu: 20}\n      targetThresholds: {cpu: 50}\n"
	p := strategytest.Plan(t, strategytest.Build(t, objs), policy)
	strategytest.Equal(t, "with LowNodeUtilization's pools", strategytest.Moves(p), []string{"shop/v-t-0 t→c1"})
	strategytest.Equal(t, "moves of the next run", strategytest.Moves(strategytest.Plan(t, strategytest.AfterPlan(t, objs, p), policy)), nil)
}
