package planner

import (
	"testing"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// EvictableTogether counts limits and budgets over the whole set, steps
// included, and spends nothing: the moves that follow see the cycle as it
// was.
func TestEvictableTogether(t *testing.T) {
	tests := []struct {
		name   string
		policy string
		extra  []any
		pods   []string
		want   string
	}{
		{name: "no limit", pods: []string{"shop/web-n1-0", "shop/web-n1-1", "shop/api-n1-0"}},
		{
			// The third pod goes in a second step.
			name:   "per node",
			policy: "limits: {perNode: 2}",
			pods:   []string{"shop/web-n1-0", "shop/web-n1-1", "shop/api-n1-0"},
		},
		{
			name:   "total",
			policy: "limits: {total: 1}",
			pods:   []string{"shop/web-n1-0", "shop/api-n1-0"},
			want:   "shop/api-n1-0: limits.total reached (1 evictions this cycle)",
		},
		{
			name:  "disruption budget, one a step",
			extra: []any{ct.PDB("shop", "web", 1)},
			pods:  []string{"shop/web-n1-0", "shop/api-n1-0", "shop/web-n1-1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := busyCluster(t, tt.extra...)
			c := (&Planner{Policy: loadPolicy(t, tt.policy), Placer: newEngine(t)}).newCycle(snap)
			pods := make([]*cluster.Pod, len(tt.pods))
			for i, key := range tt.pods {
				pods[i] = c.snap.Pod(key)
			}
			if got := c.EvictableTogether("Test", pods); got != tt.want {
				t.Errorf("EvictableTogether() = %q, want %q", got, tt.want)
			}
			// Nothing was spent: each pod alone can still go.
			for _, p := range pods {
				if why := c.Evictable("Test", p); why != "" {
					t.Errorf("after EvictableTogether, Evictable(%s) = %q", p.Key, why)
				}
			}
			if o := c.Move("Test", framework.Candidate{Pod: pods[0], Reason: "test"}); !o.Moved {
				t.Errorf("Move after EvictableTogether: %s", o.Reason)
			}
		})
	}
}
