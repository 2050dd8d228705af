package toomanyrestarts_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

func TestRemovePodsHavingTooManyRestarts(t *testing.T) {
	tests := []struct {
		name   string
		pods   []any
		policy string
		want   []string // pods, in the order they move
		reason string
	}{
		{
			// The docs' example: a crash-looping pod.
			name:   "a crash-looping pod past the threshold moves",
			pods:   []any{strategytest.Web("crashing").Restarts(12).Waiting("CrashLoopBackOff"), strategytest.Web("healthy").Restarts(2)},
			policy: "{podRestartThreshold: 10}",
			want:   []string{"shop/crashing"},
			reason: "restarted 12 times (threshold 10)",
		},
		{
			name:   "the threshold itself counts, as in the descheduler",
			pods:   []any{strategytest.Web("at").Restarts(10), strategytest.Web("below").Restarts(9)},
			policy: "{podRestartThreshold: 10}",
			want:   []string{"shop/at"},
		},
		{
			name:   "the most restarted go first",
			pods:   []any{strategytest.Web("a").Restarts(11), strategytest.Web("b").Restarts(40), strategytest.Web("c").Restarts(20)},
			policy: "{podRestartThreshold: 10}",
			want:   []string{"shop/b", "shop/c", "shop/a"},
		},
		{
			name:   "init containers count only with includingInitContainers",
			pods:   []any{strategytest.Web("init").Restarts(4).InitRestarts(8)},
			policy: "{podRestartThreshold: 10}",
		},
		{
			name:   "includingInitContainers adds their restarts",
			pods:   []any{strategytest.Web("init").Restarts(4).InitRestarts(8)},
			policy: "{podRestartThreshold: 10, includingInitContainers: true}",
			want:   []string{"shop/init"},
		},
		{
			name:   "states: only pods in CrashLoopBackOff",
			pods:   []any{strategytest.Web("crashing").Restarts(12).Waiting("CrashLoopBackOff"), strategytest.Web("recovered").Restarts(30)},
			policy: "{podRestartThreshold: 10, states: [CrashLoopBackOff]}",
			want:   []string{"shop/crashing"},
			reason: "restarted 12 times (threshold 10), container app is waiting in CrashLoopBackOff",
		},
		{
			name:   "states: only Running pods",
			pods:   []any{strategytest.Web("crashing").Restarts(12).Waiting("CrashLoopBackOff").Phase(corev1.PodPending), strategytest.Web("recovered").Restarts(30)},
			policy: "{podRestartThreshold: 10, states: [Running]}",
			want:   []string{"shop/recovered"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := append([]any{ct.Node("n1"), ct.Node("n2"), ct.DeploymentReplicaSet("shop", "web")}, tt.pods...)
			// The pods share a Deployment, whose own budget keeps the last
			// Ready one while another is pending: the selection alone here.
			p := strategytest.Plan(t, ct.Snapshot(t, objs...), "implicitBudgets: false\nstrategies:\n  RemovePodsHavingTooManyRestarts: "+tt.policy+"\n")
			strategytest.Equal(t, "moved, in order", strategytest.Order(p), tt.want)
			if tt.reason != "" && len(p.Moves) > 0 && p.Moves[0].Reason != tt.reason {
				t.Errorf("reason %q, want %q", p.Moves[0].Reason, tt.reason)
			}
		})
	}
}
