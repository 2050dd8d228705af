package defragment_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/planner"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

// waiting is a pod kube-scheduler found unschedulable five minutes ago.
func waiting(name, cpu string) *ct.PodBuilder {
	return ct.Pod("shop", name).Requests(cpu, "").Deployment("big").Unschedulable().CreatedAgo(10 * time.Minute).
		Edit(func(p *corev1.Pod) {
			p.Status.Conditions[0].LastTransitionTime = metav1.NewTime(ct.Now.Add(-5 * time.Minute))
		})
}

// scattered returns nodes of 3 CPU, each with two pods of 750m: 1.5 CPU
// free on each, none with room for a pod of more.
func scattered(nodes int) []any {
	out := []any{ct.DeploymentReplicaSet("shop", "web"), ct.DeploymentReplicaSet("shop", "big")}
	for i := range nodes {
		n := fmt.Sprintf("n%02d", i)
		out = append(out, ct.Node(n).CPU("3").Obj(),
			ct.Pod("shop", "web-"+n+"-a").On(n).Requests("750m", "").Deployment("web"),
			ct.Pod("shop", "web-"+n+"-b").On(n).Requests("750m", "").Deployment("web"))
	}
	return out
}

func placements(p *planner.Plan) []string {
	out := []string{}
	for _, pl := range p.Placements {
		out = append(out, pl.Pod+" "+pl.Node)
	}
	return out
}

func notes(p *planner.Plan) string {
	var out []string
	for _, n := range p.Notes {
		if n.Strategy == "DefragmentForPendingPods" {
			out = append(out, n.Text)
		}
	}
	return strings.Join(out, "\n")
}

func TestDefragmentForPendingPods(t *testing.T) {
	never := corev1.PreemptNever
	tests := []struct {
		name       string
		objs       []any
		policy     string
		moved      []string
		placed     []string
		note       string
		reasonLike string
		steps      []int
		pending    string
	}{
		{
			name:       "ten nodes with 1.5 CPU free each, a pending pod of 3 CPU at the same priority: two moves",
			objs:       append(scattered(10), waiting("big-0", "3")),
			moved:      []string{"shop/web-n00-a n00", "shop/web-n00-b n00"},
			placed:     []string{"shop/big-0 n00"},
			reasonLike: "makes room on n00 for pending shop/big-0",
			pending:    "1 pod pending as unschedulable (shop: 1); the plan places 1 of them on the room its moves make (placements)",
		},
		{
			name:    "a pod larger than any node: nothing moves, the note says why",
			objs:    append(scattered(10), waiting("big-0", "5")),
			moved:   nil,
			placed:  nil,
			note:    "pending shop/big-0 is left alone: it asks for 5 cpu, more than any node's allocatable (at most 3)",
			pending: "1 pod pending as unschedulable (shop: 1); no moves make room for them (the strategy's notes say why)",
		},
		{
			name: "a pod that only a node of another zone would take, and that node is too small",
			objs: append(scattered(3), ct.Node("n09").CPU("2").Zone("b").Obj(),
				waiting("big-0", "3").NodeSelector(corev1.LabelTopologyZone, "b")),
			note: "pending shop/big-0 is left alone: it asks for 3 cpu, more than the allocatable of any node its other filters let it run on (at most 2)",
		},
		{
			name: "a pod that no node takes by its other filters: no move helps",
			objs: append(scattered(3), waiting("big-0", "3").NodeSelector("disk", "ssd")),
			note: "pending shop/big-0 is left alone: no node passes its filters other than resources, so no move makes room: 0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
		},
		{
			name: "room could be made, but the pods to move fit on no other node",
			objs: []any{ct.DeploymentReplicaSet("shop", "web"),
				ct.Node("n00").CPU("3").Obj(), ct.Node("n01").CPU("3").Obj(),
				ct.Pod("shop", "web-0").On("n00").Requests("1", "").Deployment("web"),
				ct.Pod("shop", "web-1").On("n00").Requests("1", "").Deployment("web"),
				ct.Pod("shop", "web-2").On("n01").Requests("1", "").Deployment("web"),
				ct.Pod("shop", "web-3").On("n01").Requests("1", "").Deployment("web"),
				waiting("big-0", "2500m")},
			note: "pending shop/big-0 is left alone: no set of at most 3 moves makes room for it: 2 node(s) would, but the pods to move fit on no other node (0/2 nodes are available: 2 Insufficient cpu.)",
		},
		{
			name: "a pod of higher priority that preemption serves is left to kube-scheduler",
			objs: append(scattered(10), waiting("big-0", "3").Priority(1000)),
			note: "pending shop/big-0 is left to kube-scheduler's preemption: removing pods of lower priority from n00 makes room for it",
		},
		{
			name:   "preemptionPolicy: Never: the pod never preempts, so it is served",
			objs:   append(scattered(10), waiting("big-0", "3").Priority(1000).Edit(func(p *corev1.Pod) { p.Spec.PreemptionPolicy = &never })),
			moved:  []string{"shop/web-n00-a n00", "shop/web-n00-b n00"},
			placed: []string{"shop/big-0 n00"},
		},
		{
			name:   "minPriority leaves pods of lower priority waiting",
			objs:   append(scattered(10), waiting("big-0", "3")),
			policy: "{minPriority: 10}",
		},
		{
			name:   "minPendingAge: a pod found unschedulable a moment ago waits",
			objs:   append(scattered(10), waiting("big-0", "3")),
			policy: "{minPendingAge: 10m}",
		},
		{
			name:   "limits hold: with one eviction per node's run, two moves cannot be made on any node",
			objs:   append(scattered(10), waiting("big-0", "3")),
			policy: "{}\nlimits: {perRun: {node: 1}}",
			note:   "pending shop/big-0 is left alone: the 2 moves that make room on n00 cannot all be made",
		},
		{
			name: "a PodDisruptionBudget that allows no disruption holds: nothing moves",
			objs: append(scattered(10), waiting("big-0", "3"), ct.PDB("shop", "web", 0)),
			note: "pending shop/big-0 is left alone: no set of at most 3 moves makes room for it: 10 node(s) had no pod this strategy may move (0/10 nodes are available: 10 Insufficient cpu.)",
		},
		{
			name:   "a PodDisruptionBudget that allows one disruption: the moves take two steps",
			objs:   append(scattered(10), waiting("big-0", "3"), ct.PDB("shop", "web", 1)),
			moved:  []string{"shop/web-n00-a n00", "shop/web-n00-b n00"},
			placed: []string{"shop/big-0 n00"},
			steps:  []int{1, 2},
		},
		{
			name: "the fewest moves: a node with one large pod beats one with two small ones",
			objs: append(scattered(3), ct.Node("n09").CPU("3").Obj(),
				ct.Pod("shop", "web-n09-a").On("n09").Requests("1500m", "").Deployment("web"),
				waiting("big-0", "3")),
			moved:  []string{"shop/web-n09-a n09"},
			placed: []string{"shop/big-0 n09"},
		},
		{
			name: "a pending pod that fits as the cluster stands is left to kube-scheduler",
			objs: append(scattered(3), ct.Node("n09").CPU("3").Obj(), waiting("big-0", "3")),
			note: "pending shop/big-0 fits on n09 as the cluster stands: kube-scheduler places it without moves",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pol := tt.policy
			if pol == "" {
				pol = "{}"
			}
			p := strategytest.Plan(t, strategytest.Snapshot(t, tt.objs), "strategies:\n  DefragmentForPendingPods: "+pol+"\n")
			strategytest.Equal(t, "moves", strategytest.MovedFrom(p), tt.moved)
			strategytest.Equal(t, "placements", placements(p), tt.placed)
			if tt.note != "" && !strings.Contains(notes(p), tt.note) {
				t.Errorf("notes:\n%s\nwant one with %q", notes(p), tt.note)
			}
			if tt.reasonLike != "" {
				for _, m := range p.Moves {
					if m.Reason != tt.reasonLike {
						t.Errorf("reason of %s = %q, want %q", m.Pod, m.Reason, tt.reasonLike)
					}
				}
			}
			if tt.pending != "" {
				var got string
				for _, n := range p.Notes {
					if n.Pending != nil {
						got = n.Text
					}
				}
				if got != tt.pending {
					t.Errorf("note on pending pods = %q, want %q", got, tt.pending)
				}
			}
			if tt.steps != nil {
				var steps []int
				for _, m := range p.Moves {
					steps = append(steps, m.Step)
				}
				if fmt.Sprint(steps) != fmt.Sprint(tt.steps) {
					t.Errorf("steps = %v, want %v", steps, tt.steps)
				}
			}
			for _, m := range p.Moves {
				if m.To == "" || m.To == m.From {
					t.Errorf("move %s %s→%s: not to another node", m.Pod, m.From, m.To)
				}
			}
		})
	}
}
