package lownodeutilization_test

import (
	"fmt"
	"slices"
	"testing"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/planner"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

// skips lists "pod category: reason" of the plan's skipped pods.
func skips(p *planner.Plan) []string {
	var out []string
	for _, s := range p.Skipped {
		out = append(out, fmt.Sprintf("%s %s: %s", s.Pod, s.Category, s.Reason))
	}
	return out
}

// cheapSmallPods puts three pods of 32m and three of 1 CPU on hot; the
// small ones have the lower pod-deletion-cost, so they are first in line.
func cheapSmallPods() []any {
	pods := strategytest.CPUPods("hot", "web", "32m", "32m", "32m", "1", "1", "1")
	for _, o := range pods[1:4] {
		o.(*ct.PodBuilder).Annotate("controller.kubernetes.io/pod-deletion-cost", "-1")
	}
	return pods
}

func TestLowNodeUtilizationMinImprovement(t *testing.T) {
	hundreds := slices.Repeat([]string{"100m"}, 24) // 2.5 points of hot's cpu each: 60%
	tests := []struct {
		name   string
		pods   []any
		policy string
		moves  []string
		skips  []string
	}{
		{
			name:   "without minImprovement the first pods in line leave, however small",
			pods:   cheapSmallPods(), // 77.4%
			policy: lnu20x50,
			moves:  []string{"shop/web-hot-0 hot→idle", "shop/web-hot-1 hot→idle", "shop/web-hot-2 hot→idle", "shop/web-hot-3 hot→idle"},
		},
		{
			// 32m is 0.8 points of hot's 4 CPU: the pods of 1 CPU (25
			// points) leave in their place.
			name:   "minImprovement: a pod too small to matter stays, and a bigger one leaves instead",
			pods:   cheapSmallPods(),
			policy: lnu20x50 + "    minImprovement: 2\n",
			moves:  []string{"shop/web-hot-3 hot→idle", "shop/web-hot-4 hot→idle"},
		},
		{
			// hot must shed 10 points: four of its pods, which are
			// skipped; the others were not needed.
			name:   "minImprovement: when every pod is too small, those the node needed gone are skipped",
			pods:   strategytest.CPUPods("hot", "web", hundreds...),
			policy: lnu20x50 + "    minImprovement: 3\n",
			skips: []string{
				"shop/web-hot-0 below-min-improvement: would lower hot's cpu by 2.5 points; minImprovement is 3",
				"shop/web-hot-1 below-min-improvement: would lower hot's cpu by 2.5 points; minImprovement is 3",
				"shop/web-hot-10 below-min-improvement: would lower hot's cpu by 2.5 points; minImprovement is 3",
				"shop/web-hot-11 below-min-improvement: would lower hot's cpu by 2.5 points; minImprovement is 3",
			},
		},
		{
			// The bare pod comes first in line (its namespace sorts
			// first): what keeps it from any eviction is its reason.
			name:   "minImprovement: a pod that may not be evicted is skipped for that, not for its size",
			pods:   append(strategytest.CPUPods("hot", "web", hundreds[1:]...), ct.Pod("default", "debug").On("hot").Requests("100m", "")),
			policy: lnu20x50 + "    minImprovement: 3\n",
			skips: []string{
				"default/debug protected: bare pod: no controller would recreate it; allow with evictable.barePods",
				"shop/web-hot-0 below-min-improvement: would lower hot's cpu by 2.5 points; minImprovement is 3",
				"shop/web-hot-1 below-min-improvement: would lower hot's cpu by 2.5 points; minImprovement is 3",
				"shop/web-hot-10 below-min-improvement: would lower hot's cpu by 2.5 points; minImprovement is 3",
			},
		},
		{
			name:   "minImprovement equal to a pod's share moves it",
			pods:   strategytest.CPUPods("hot", "web", hundreds...),
			policy: lnu20x50 + "    minImprovement: 2.5\n",
			moves: []string{"shop/web-hot-0 hot→idle", "shop/web-hot-1 hot→idle",
				"shop/web-hot-10 hot→idle", "shop/web-hot-11 hot→idle"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := strategytest.Snapshot(t, []any{ct.Node("hot"), ct.Node("idle").CPU("16")}, tt.pods)
			p := strategytest.Plan(t, snap, tt.policy)
			strategytest.Equal(t, "moves", strategytest.Moves(p), tt.moves)
			strategytest.Equal(t, "skips", skips(p), tt.skips)
		})
	}
}
