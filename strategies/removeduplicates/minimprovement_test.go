package removeduplicates_test

import (
	"fmt"
	"testing"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

// The gain of spreading a node's duplicates is how far its count drops:
// down to its share, ceil(pods / nodes where they fit).
func TestRemoveDuplicatesMinImprovement(t *testing.T) {
	web := func(name, node string) any {
		return ct.Pod("shop", name).On(node).Requests("100m", "64Mi").Deployment("web")
	}
	nodes := []any{ct.Node("n1"), ct.Node("n2"), ct.Node("n3"), ct.DeploymentReplicaSet("shop", "web")}
	threeOnN1 := []any{web("web-0", "n1"), web("web-1", "n1"), web("web-2", "n1")}
	fourOnThree := []any{web("web-0", "n1"), web("web-1", "n1"), web("web-2", "n1"), web("web-3", "n2")}
	policy := func(min int) string {
		return fmt.Sprintf("strategies:\n  RemoveDuplicates: {minImprovement: %d}\n", min)
	}
	tests := []struct {
		name   string
		pods   []any
		policy string
		moves  []string
		skips  []string
	}{
		{
			name:   "three replicas on one node of three: n1 drops from 3 to 1, by 2",
			pods:   threeOnN1,
			policy: policy(2),
			moves:  []string{"shop/web-0 n1", "shop/web-1 n1"},
		},
		{
			// ceil(4/3) = 2: n1 is one pod past its share.
			name:   "four replicas on three nodes: one pod past the share is not worth a move",
			pods:   fourOnThree,
			policy: policy(2),
			skips:  []string{"shop/web-0 below-min-improvement: would lower n1's count of Deployment shop/web from 3 to 2, by 1; minImprovement is 2"},
		},
		{
			name:   "without minImprovement it moves",
			pods:   fourOnThree,
			policy: "strategies:\n  RemoveDuplicates: {}\n",
			moves:  []string{"shop/web-0 n1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := strategytest.Plan(t, strategytest.Snapshot(t, nodes, tt.pods), tt.policy)
			strategytest.Equal(t, "moves", strategytest.MovedFrom(p), tt.moves)
			var skips []string
			for _, s := range p.Skipped {
				skips = append(skips, fmt.Sprintf("%s %s: %s", s.Pod, s.Category, s.Reason))
			}
			strategytest.Equal(t, "skips", skips, tt.skips)
		})
	}
}
