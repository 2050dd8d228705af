package interpodantiaffinity_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

func TestRemovePodsViolatingInterPodAntiAffinity(t *testing.T) {
	pod := func(ns, name, node, app string) *ct.PodBuilder {
		return ct.Pod(ns, name).On(node).Requests("100m", "").Label("app", app).OwnedBy("StatefulSet", name)
	}
	host := corev1.LabelHostname
	avoid := func(app string) map[string]string { return map[string]string{"app": app} }
	tests := []struct {
		name   string
		objs   []any
		want   []string // "pod node" of the pods that move
		reason string
	}{
		{
			// The docs' example: b-0 got the label its neighbour's
			// anti-affinity selects after both were scheduled. Either move
			// clears it; the lower priority one goes.
			name: "an anti-affinity broken by a label change: the lower priority pod moves",
			objs: []any{ct.Node("n1"), ct.Node("n2"),
				pod("shop", "a-0", "n1", "a").AntiAffinity(host, avoid("b")),
				pod("shop", "b-0", "n1", "b").Priority(-1)},
			want:   []string{"shop/b-0 n1"},
			reason: "required pod anti-affinity broken in kubernetes.io/hostname=n1: shares it with shop/a-0",
		},
		{
			name: "a co-located pod's term selecting the pod is a violation too",
			objs: []any{ct.Node("n1"), ct.Node("n2"),
				pod("shop", "a-0", "n1", "a").AntiAffinity(host, avoid("b")).Priority(-1),
				pod("shop", "b-0", "n1", "b")},
			want: []string{"shop/a-0 n1"},
		},
		{
			name: "the fewest pods: the one in the most conflicts moves, whatever its priority",
			objs: []any{ct.Node("n1"), ct.Node("n2"),
				pod("shop", "a-0", "n1", "a").AntiAffinity(host, avoid("b")).Priority(100),
				pod("shop", "b-0", "n1", "b"), pod("shop", "b-1", "n1", "b"), pod("shop", "b-2", "n1", "b")},
			want: []string{"shop/a-0 n1"},
		},
		{
			name: "replicas that avoid each other: all but one leave the node",
			objs: []any{ct.Node("n1"), ct.Node("n2"), ct.Node("n3"),
				pod("shop", "c-0", "n1", "c").AntiAffinity(host, avoid("c")).CreatedAgo(3 * time.Hour),
				pod("shop", "c-1", "n1", "c").AntiAffinity(host, avoid("c")).CreatedAgo(2 * time.Hour),
				pod("shop", "c-2", "n1", "c").AntiAffinity(host, avoid("c")).CreatedAgo(time.Hour)},
			// Equal conflicts and priority: the youngest first.
			want: []string{"shop/c-1 n1", "shop/c-2 n1"},
		},
		{
			name: "a zone-wide term: pods on two nodes of one zone conflict",
			objs: []any{ct.Node("n1").Zone("zone-a"), ct.Node("n2").Zone("zone-a"), ct.Node("n3").Zone("zone-b"),
				pod("shop", "a-0", "n1", "a").AntiAffinity(corev1.LabelTopologyZone, avoid("b")),
				pod("shop", "b-0", "n2", "b").Priority(-1)},
			want: []string{"shop/b-0 n2"},
		},
		{
			name: "nodes without the topology key break no term",
			objs: []any{ct.Node("n1"), ct.Node("n2").Zone("zone-b"),
				pod("shop", "a-0", "n1", "a").AntiAffinity(corev1.LabelTopologyZone, avoid("b")),
				pod("shop", "b-0", "n1", "b")},
		},
		{
			name: "a term without namespaces selects pods of its own namespace only",
			objs: []any{ct.Node("n1"), ct.Node("n2"),
				pod("shop", "a-0", "n1", "a").AntiAffinity(host, avoid("b")),
				pod("blog", "b-0", "n1", "b")},
		},
		{
			name: "a term's namespaceSelector selects namespaces by their labels",
			objs: []any{ct.Node("n1"), ct.Node("n2"),
				ct.Namespace("batch", map[string]string{"team": "data"}), ct.Namespace("blog", map[string]string{"team": "web"}),
				pod("shop", "a-0", "n1", "a").AntiAffinityTerm(corev1.PodAffinityTerm{TopologyKey: host,
					LabelSelector:     &metav1.LabelSelector{MatchLabels: avoid("b")},
					NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "data"}}}),
				pod("batch", "b-0", "n1", "b").Priority(-1), pod("blog", "b-0", "n1", "b").Priority(-1)},
			want: []string{"batch/b-0 n1"},
		},
		{
			name: "a term's namespaces list",
			objs: []any{ct.Node("n1"), ct.Node("n2"),
				pod("shop", "a-0", "n1", "a").AntiAffinityTerm(corev1.PodAffinityTerm{TopologyKey: host,
					LabelSelector: &metav1.LabelSelector{MatchLabels: avoid("b")}, Namespaces: []string{"blog"}}),
				pod("batch", "b-0", "n1", "b").Priority(-1), pod("blog", "b-0", "n1", "b").Priority(-1)},
			want: []string{"blog/b-0 n1"},
		},
		{
			// b-0 is being deleted: the conflict clears itself, and the
			// scheduler keeps the replacement of neither next to the other.
			name: "a terminating pod is in no conflict",
			objs: []any{ct.Node("n1"), ct.Node("n2"),
				pod("shop", "a-0", "n1", "a").AntiAffinity(host, avoid("b")),
				pod("shop", "b-0", "n1", "b").Priority(-1).Terminating()},
		},
		{
			name: "a terminating pod's own term breaks nothing either",
			objs: []any{ct.Node("n1"), ct.Node("n2"),
				pod("shop", "a-0", "n1", "a").AntiAffinity(host, avoid("b")).Terminating(),
				pod("shop", "b-0", "n1", "b")},
		},
		{
			name: "when the lower priority pod cannot move, the other one does",
			objs: []any{ct.Node("n1"), ct.Node("n2"),
				pod("shop", "a-0", "n1", "a").AntiAffinity(host, avoid("b")),
				pod("shop", "b-0", "n1", "b").Priority(-1).Annotate("rebalancer.dev/evict", "false")},
			want: []string{"shop/a-0 n1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := strategytest.Plan(t, ct.Snapshot(t, tt.objs...), "strategies:\n  RemovePodsViolatingInterPodAntiAffinity: {}\n")
			strategytest.Equal(t, "moved", strategytest.MovedFrom(p), tt.want)
			if tt.reason != "" && len(p.Moves) > 0 && p.Moves[0].Reason != tt.reason {
				t.Errorf("reason %q, want %q", p.Moves[0].Reason, tt.reason)
			}
			for _, m := range p.Moves {
				if m.To == "" || m.To == m.From {
					t.Errorf("%s moves from %s to %q", m.Pod, m.From, m.To)
				}
			}
		})
	}
}
