package topologyspread_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

// The gain of balancing a constraint is the drop of its skew once the
// strategy has moved what it would: zone-a holds 4 pods and zone-c none, a
// skew of 4 that two moves bring to 0.
func TestTopologySpreadMinImprovement(t *testing.T) {
	nodes := []any{ct.Node("n1").Zone("zone-a"), ct.Node("n2").Zone("zone-a"), ct.Node("n3").Zone("zone-b"), ct.Node("n4").Zone("zone-c")}
	names := []string{"n1", "n2", "n3", "n4"}
	fourZones := []any{ct.Node("n1").Zone("zone-a"), ct.Node("n2").Zone("zone-b"), ct.Node("n3").Zone("zone-c"), ct.Node("n4").Zone("zone-d")}
	policy := func(min int) string {
		return fmt.Sprintf("strategies:\n  RemovePodsViolatingTopologySpreadConstraint: {minImprovement: %d}\n", min)
	}
	tests := []struct {
		name   string
		nodes  []any
		pods   []any
		policy string
		moves  []string
		skips  []string
	}{
		{
			name:   "a skew that drops by minImprovement is balanced",
			nodes:  nodes,
			pods:   strategytest.ZonePods(map[string]int{"n1": 2, "n2": 2, "n3": 2}, names, strategytest.SpreadOn(zone, 1, corev1.DoNotSchedule)),
			policy: policy(4),
			moves:  []string{"shop/web-0 n1→n4", "shop/web-1 n1→n4"},
		},
		{
			name:   "a skew that would drop by less stays, and the pods zone-a had to shed are skipped",
			nodes:  nodes,
			pods:   strategytest.ZonePods(map[string]int{"n1": 2, "n2": 2, "n3": 2}, names, strategytest.SpreadOn(zone, 1, corev1.DoNotSchedule)),
			policy: policy(5),
			skips: []string{
				"shop/web-0 below-min-improvement: would lower the skew of topology spread on topology.kubernetes.io/zone (maxSkew 1, DoNotSchedule) from 4 to 0, by 4; minImprovement is 5",
				"shop/web-1 below-min-improvement: would lower the skew of topology spread on topology.kubernetes.io/zone (maxSkew 1, DoNotSchedule) from 4 to 0, by 4; minImprovement is 5",
			},
		},
		{
			// 3, 3, 1, 1: the first move leaves the skew at 2, the second
			// brings it to 0. The moves are weighed together.
			name:   "two fullest domains: the first move lowers the skew by nothing, the two together by 2",
			nodes:  fourZones,
			pods:   strategytest.ZonePods(map[string]int{"n1": 3, "n2": 3, "n3": 1, "n4": 1}, names, strategytest.SpreadOn(zone, 1, corev1.DoNotSchedule)),
			policy: policy(2),
			moves:  []string{"shop/web-0 n1→n3", "shop/web-3 n2→n4"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := strategytest.Plan(t, strategytest.Snapshot(t, tt.nodes, tt.pods), tt.policy)
			strategytest.Equal(t, "moves", strategytest.Moves(p), tt.moves)
			var skips []string
			for _, s := range p.Skipped {
				skips = append(skips, fmt.Sprintf("%s %s: %s", s.Pod, s.Category, s.Reason))
			}
			strategytest.Equal(t, "skips", skips, tt.skips)
		})
	}
}
