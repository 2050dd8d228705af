package planner

import (
	"strings"
	"testing"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// With replacements predicted, nothing steers a replacement: the
// ReplicaSet creates it and kube-scheduler places it by its own scores,
// the node the evicted pod leaves included. The plan predicts that choice.
func TestPredictedReplacements(t *testing.T) {
	const predicted = "replacements: predicted\n"
	web := func(node string) *ct.PodBuilder {
		return ct.Pod("shop", "web-0").On(node).Requests("1", "1Gi").Deployment("web")
	}
	filler := func(name, node, cpu string) *ct.PodBuilder {
		return ct.Pod("shop", name).On(node).Requests(cpu, "1Gi").Deployment("api")
	}
	base := []any{ct.DeploymentReplicaSet("shop", "web"), ct.DeploymentReplicaSet("shop", "api")}
	tests := []struct {
		name   string
		objs   []any
		policy string
		accept func(*cluster.Node) (bool, string)
		want   string // "pod→to", or "" when it stays
		skip   string // the skip's "category: reason" prefix
	}{
		{
			// The default: the rebalancer scheduler (or an extender)
			// sends the replacement where the plan says, never back.
			name: "steered (the default): the replacement goes to another node",
			objs: []any{ct.Node("n1"), ct.Node("n2"), web("n1"), filler("api-0", "n2", "2")},
			want: "shop/web-0→n2",
		},
		{
			// Freed of web-0, n1 is the least allocated node: the default
			// profile's NodeResourcesFit (LeastAllocated) puts the
			// replacement right back.
			name:   "predicted: a replacement that would land back on its node is futile",
			objs:   []any{ct.Node("n1"), ct.Node("n2"), web("n1"), filler("api-0", "n2", "2")},
			policy: predicted,
			skip:   "futile: its replacement would land back on n1: nothing steers replacements (replacements: predicted), and the scheduler scores n1 best",
		},
		{
			name:   "predicted: the scheduler's choice is another node, and the plan says so",
			objs:   []any{ct.Node("n1"), ct.Node("n2"), web("n1"), filler("api-0", "n1", "2")},
			policy: predicted,
			want:   "shop/web-0→n2",
		},
		{
			// n1 and n2 score alike once web-0 has left n2; the engine
			// picks n1 by name, kube-scheduler either at random.
			name:   "predicted: a tie with the node it leaves is futile",
			objs:   []any{ct.Node("n1"), ct.Node("n2"), web("n2")},
			policy: predicted,
			skip:   "futile: its replacement could land back on n2",
		},
		{
			name:   "predicted: a node the strategy would not move it to is futile",
			objs:   []any{ct.Node("n1"), ct.Node("n2"), web("n1"), filler("api-0", "n1", "2")},
			policy: predicted,
			accept: func(n *cluster.Node) (bool, string) {
				return n.Name != "n2", "node(s) were not under-utilized"
			},
			skip: "futile: its replacement would land on n2, where the move may not lead: node(s) were not under-utilized",
		},
		{
			name:   "predicted: a cordoned node is not where kube-scheduler puts it back",
			objs:   []any{ct.Node("n1").Cordoned(), ct.Node("n2"), web("n1"), filler("api-0", "n2", "2")},
			policy: predicted,
			want:   "shop/web-0→n2",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := ct.Snapshot(t, append(append([]any{}, base...), tt.objs...)...)
			pol := loadPolicy(t, tt.policy)
			c := (&Planner{Policy: pol, Placer: newEngine(t)}).newCycle(snap)
			p := snap.Pod("shop/web-0")
			if o := c.Move("Test", framework.Candidate{Pod: p, Reason: "test", Accept: tt.accept}); !o.Moved {
				c.Skip("Test", p, o)
			}
			c.plan.Skipped = c.skipped()
			var got string
			for _, m := range c.plan.Moves {
				got = m.Pod + "→" + m.To
			}
			if got != tt.want {
				t.Errorf("moves %q, want %q; skipped:\n%s", got, tt.want, skipped(c.plan))
			}
			if want := tt.policy == predicted; c.plan.Predicted != want {
				t.Errorf("plan.Predicted %v, want %v", c.plan.Predicted, want)
			}
			if tt.skip == "" {
				if len(c.plan.Skipped) > 0 {
					t.Errorf("skipped:\n%s", skipped(c.plan))
				}
				return
			}
			if len(c.plan.Skipped) != 1 || !strings.HasPrefix(string(c.plan.Skipped[0].Category)+": "+c.plan.Skipped[0].Reason, tt.skip) {
				t.Errorf("skipped:\n%s\nwant %s…", skipped(c.plan), tt.skip)
			}
			// A futile move leaves the working snapshot as it was.
			if n := c.snap.NodeOf(c.snap.Pod("shop/web-0")); n == nil || n.Name != p.Spec.NodeName {
				t.Errorf("web-0 is on %v after a refused move, want %s", n, p.Spec.NodeName)
			}
		})
	}
}
