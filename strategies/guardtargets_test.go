package strategies_test

import (
	"strings"
	"testing"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/planner"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

// candidatesOf records, for each pod the planner searches a node for, the
// nodes the first search was narrowed to ("every node" when it was not).
type candidatesOf struct {
	engine.Placer
	seen map[string]string
}

func (c *candidatesOf) Schedule(snap *cluster.Snapshot, pod *cluster.Pod, opts engine.Options) engine.Result {
	if _, ok := c.seen[pod.Key]; !ok {
		names := []string{}
		for _, i := range opts.AcceptOnly {
			names = append(names, snap.Nodes()[i].Name)
		}
		c.seen[pod.Key] = strings.Join(names, " ")
		if opts.AcceptOnly == nil {
			c.seen[pod.Key] = "every node"
		}
	}
	return c.Placer.Schedule(snap, pod, opts)
}

// With LowNodeUtilization in the policy, the guard refuses every node above
// its target (50% of cpu here) whatever the pod: RemoveDuplicates searches
// only the others, and a node that a move took below its target is searched
// again.
func TestRemoveDuplicatesSearchesOnlyNodesBelowTheTarget(t *testing.T) {
	filler := func(name, node, cpu string) *ct.PodBuilder {
		return ct.Pod("batch", name).On(node).Requests(cpu, "")
	}
	api := func(name string) *ct.PodBuilder {
		return ct.Pod("shop", name).On("n1").Requests("700m", "").Deployment("api")
	}
	web := func(name string) *ct.PodBuilder {
		return ct.Pod("shop", name).On("n2").Requests("100m", "").Deployment("web")
	}
	tests := []struct {
		name   string
		policy string
		want   map[string]string
	}{
		{
			name: "LowNodeUtilization's target narrows the search",
			policy: `strategies:
  RemoveDuplicates: {}
  LowNodeUtilization:
    thresholds: {cpu: 20}
    targetThresholds: {cpu: 50}
`,
			want: map[string]string{
				// n1 (2.1 of 4 cpu) and n4 (2.4) are above 50%.
				"shop/api-2": "n2 n3",
				// api-2 left n1: 1.4 cpu, 35%.
				"shop/api-1": "n1 n2 n3",
				"shop/web-1": "n1 n2 n3",
			},
		},
		{
			name:   "no target without LowNodeUtilization: every node",
			policy: "strategies:\n  RemoveDuplicates: {}\n",
			want:   map[string]string{"shop/api-2": "every node", "shop/api-1": "every node", "shop/web-1": "every node"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			snap := strategytest.Build(t, strategytest.Objects([]any{
				ct.Node("n1"), ct.Node("n2"), ct.Node("n3"), ct.Node("n4"),
				ct.DeploymentReplicaSet("shop", "api"), ct.DeploymentReplicaSet("shop", "web"),
				api("api-0").CreatedAgo(3), api("api-1").CreatedAgo(2), api("api-2").CreatedAgo(1),
				web("web-0").CreatedAgo(2), web("web-1").CreatedAgo(1),
				filler("filler-2", "n2", "1"), filler("filler-3", "n3", "1"), filler("filler-4", "n4", "2400m"),
			}))
			pol, err := policy.Load([]byte("apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\ncooldown: 0s\n"+tc.policy), "policy.yaml")
			if err != nil {
				t.Fatal(err)
			}
			e, err := engine.New(profile.DefaultProfile())
			if err != nil {
				t.Fatal(err)
			}
			placer := &candidatesOf{Placer: e, seen: map[string]string{}}
			p := (&planner.Planner{Policy: pol, Placer: placer}).Plan(snap)
			strategytest.Equal(t, "pods moved", strategytest.MovedFrom(p), []string{"shop/api-1 n1", "shop/api-2 n1", "shop/web-1 n2"})
			for pod, want := range tc.want {
				if got := placer.seen[pod]; got != want {
					t.Errorf("%s searched %q, want %q", pod, got, want)
				}
			}
		})
	}
}
