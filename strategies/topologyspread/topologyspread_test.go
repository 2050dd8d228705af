package topologyspread_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

const zone = corev1.LabelTopologyZone

func TestRemovePodsViolatingTopologySpreadConstraint(t *testing.T) {
	const doNotSchedule = "strategies:\n  RemovePodsViolatingTopologySpreadConstraint: {}\n"
	fourNodes := []any{ct.Node("n1").Zone("zone-a"), ct.Node("n2").Zone("zone-a"), ct.Node("n3").Zone("zone-b"), ct.Node("n4").Zone("zone-c")}
	names := []string{"n1", "n2", "n3", "n4"}
	both := func(b *ct.PodBuilder) *ct.PodBuilder {
		return b.Spread(zone, 1, corev1.DoNotSchedule, map[string]string{"app": "web"}).
			Spread(corev1.LabelHostname, 1, corev1.DoNotSchedule, map[string]string{"app": "web"})
	}
	tests := []struct {
		name   string
		nodes  []any
		pods   []any
		policy string
		want   []string // "pod from→to"
		reason string
	}{
		{
			// The docs' situation: zone-c was down while the pods were
			// scheduled and came back empty.
			name:   "a zone came back empty: the fewest pods move to it",
			nodes:  fourNodes,
			pods:   strategytest.ZonePods(map[string]int{"n1": 2, "n2": 2, "n3": 2}, names, strategytest.SpreadOn(zone, 1, corev1.DoNotSchedule)),
			policy: doNotSchedule,
			want:   []string{"shop/web-0 n1→n4", "shop/web-1 n1→n4"},
			reason: "topology spread on topology.kubernetes.io/zone (maxSkew 1, DoNotSchedule): zone-a has 4 matching pods, zone-c 0: skew 4",
		},
		{
			// kube-scheduler's spread counting skips terminating pods: the
			// two n2 pods being deleted leave zone-a with two, as many as
			// the other zones.
			name:  "terminating pods are not counted",
			nodes: fourNodes,
			pods: append(strategytest.ZonePods(map[string]int{"n1": 2, "n3": 2, "n4": 2}, names, strategytest.SpreadOn(zone, 1, corev1.DoNotSchedule)),
				strategytest.SpreadOn(zone, 1, corev1.DoNotSchedule)(ct.Pod("shop", "web-old-0").On("n2").Requests("100m", "").Deployment("web").Terminating()),
				strategytest.SpreadOn(zone, 1, corev1.DoNotSchedule)(ct.Pod("shop", "web-old-1").On("n2").Requests("100m", "").Deployment("web").Terminating())),
			policy: doNotSchedule,
		},
		{
			// Taking both from n1 would leave it empty and break the
			// hostname constraint: the second pod comes from n2.
			name:   "zone and hostname constraints are fixed together",
			nodes:  fourNodes,
			pods:   strategytest.ZonePods(map[string]int{"n1": 2, "n2": 2, "n3": 2}, names, both),
			policy: doNotSchedule,
			want:   []string{"shop/web-0 n1→n4", "shop/web-2 n2→n4"},
		},
		{
			name:   "ScheduleAnyway constraints are left alone by default",
			nodes:  fourNodes,
			pods:   strategytest.ZonePods(map[string]int{"n1": 2, "n2": 2, "n3": 2}, names, strategytest.SpreadOn(zone, 1, corev1.ScheduleAnyway)),
			policy: doNotSchedule,
		},
		{
			name:   "constraints: [ScheduleAnyway] balances them",
			nodes:  fourNodes,
			pods:   strategytest.ZonePods(map[string]int{"n1": 2, "n2": 2, "n3": 2}, names, strategytest.SpreadOn(zone, 1, corev1.ScheduleAnyway)),
			policy: "strategies:\n  RemovePodsViolatingTopologySpreadConstraint: {constraints: [ScheduleAnyway]}\n",
			want:   []string{"shop/web-0 n1→n4", "shop/web-1 n1→n4"},
		},
		{
			// Moving to zone-c (3) instead of zone-b (2) would take two
			// moves instead of one.
			name:   "the fewest moves: replacements go to the least populated domain",
			nodes:  []any{ct.Node("n1").Zone("zone-a"), ct.Node("n2").Zone("zone-b"), ct.Node("n3").Zone("zone-c")},
			pods:   strategytest.ZonePods(map[string]int{"n1": 6, "n2": 2, "n3": 3}, []string{"n1", "n2", "n3"}, strategytest.SpreadOn(zone, 2, corev1.DoNotSchedule)),
			policy: doNotSchedule,
			want:   []string{"shop/web-0 n1→n2"},
		},
		{
			// kube-scheduler would count zone-c, whose only node the pods
			// do not tolerate, as a domain with 0 pods: no move could ever
			// fill it.
			name: "a domain no pod can reach does not hold the minimum",
			nodes: []any{ct.Node("n1").Zone("zone-a"), ct.Node("n2").Zone("zone-b"),
				ct.Node("n3").Zone("zone-c").Taint("dedicated", "gpu", corev1.TaintEffectNoSchedule)},
			pods:   strategytest.ZonePods(map[string]int{"n1": 3, "n2": 2}, []string{"n1", "n2"}, strategytest.SpreadOn(zone, 1, corev1.DoNotSchedule)),
			policy: doNotSchedule,
		},
		{
			name:  "nodeAffinityPolicy Honor (the default): nodes the pods may not use are not domains",
			nodes: []any{ct.Node("n1").Zone("zone-a").Label("pool", "web"), ct.Node("n2").Zone("zone-b").Label("pool", "web"), ct.Node("n3").Zone("zone-c")},
			pods: strategytest.ZonePods(map[string]int{"n1": 2, "n2": 2}, []string{"n1", "n2"}, func(b *ct.PodBuilder) *ct.PodBuilder {
				return strategytest.SpreadOn(zone, 1, corev1.DoNotSchedule)(b).NodeSelector("pool", "web")
			}),
			policy: doNotSchedule,
		},
		{
			name:  "without minDomains, one pod moves",
			nodes: []any{ct.Node("n1").Zone("zone-a"), ct.Node("n2").Zone("zone-b"), ct.Node("n3").Zone("zone-c")},
			pods:  strategytest.ZonePods(map[string]int{"n1": 3, "n2": 1, "n3": 1}, []string{"n1", "n2", "n3"}, strategytest.SpreadOn(zone, 1, corev1.DoNotSchedule)),
			want:  []string{"shop/web-0 n1→n2"},
		},
		{
			// With fewer domains than minDomains the minimum counts as 0:
			// only an empty domain could take a pod, and there is none.
			name:  "minDomains: with fewer domains, no move can help",
			nodes: []any{ct.Node("n1").Zone("zone-a"), ct.Node("n2").Zone("zone-b"), ct.Node("n3").Zone("zone-c")},
			pods: strategytest.ZonePods(map[string]int{"n1": 3, "n2": 1, "n3": 1}, []string{"n1", "n2", "n3"}, func(b *ct.PodBuilder) *ct.PodBuilder {
				return b.SpreadConstraint(corev1.TopologySpreadConstraint{TopologyKey: zone, MaxSkew: 1, WhenUnsatisfiable: corev1.DoNotSchedule,
					MinDomains: new(int32(4)), LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}})
			}),
		},
		{
			// Two revisions of a Deployment, each spread on its own with
			// matchLabelKeys: [pod-template-hash], are each skewed although
			// together they are balanced.
			name:  "matchLabelKeys: each revision is balanced on its own",
			nodes: []any{ct.Node("n1").Zone("zone-a"), ct.Node("n2").Zone("zone-b")},
			pods: func() []any {
				pods := []any{ct.DeploymentReplicaSet("shop", "web")}
				for i, node := range []string{"n1", "n1", "n1", "n2", "n2", "n2"} {
					hash := []string{"old", "new"}[i/3]
					pods = append(pods, ct.Pod("shop", fmt.Sprintf("web-%s-%d", hash, i)).On(node).Requests("100m", "").Deployment("web").
						Label("pod-template-hash", hash).SpreadConstraint(corev1.TopologySpreadConstraint{TopologyKey: zone, MaxSkew: 1,
						WhenUnsatisfiable: corev1.DoNotSchedule, MatchLabelKeys: []string{"pod-template-hash"},
						LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}))
				}
				return pods
			}(),
			want: []string{"shop/web-new-3 n2→n1", "shop/web-old-0 n1→n2"},
		},
		{
			// As a dump's decoder shares them, every pod holds the very
			// same list of constraints: each revision is still its own.
			name:  "matchLabelKeys: revisions that share one list of constraints",
			nodes: []any{ct.Node("n1").Zone("zone-a"), ct.Node("n2").Zone("zone-b")},
			pods: func() []any {
				shared := []corev1.TopologySpreadConstraint{{TopologyKey: zone, MaxSkew: 1,
					WhenUnsatisfiable: corev1.DoNotSchedule, MatchLabelKeys: []string{"pod-template-hash"},
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
				pods := []any{ct.DeploymentReplicaSet("shop", "web")}
				for i, node := range []string{"n1", "n1", "n1", "n2", "n2", "n2"} {
					hash := []string{"old", "new"}[i/3]
					pods = append(pods, ct.Pod("shop", fmt.Sprintf("web-%s-%d", hash, i)).On(node).Requests("100m", "").Deployment("web").
						Label("pod-template-hash", hash).Edit(func(p *corev1.Pod) { p.Spec.TopologySpreadConstraints = shared }))
				}
				return pods
			}(),
			want: []string{"shop/web-new-3 n2→n1", "shop/web-old-0 n1→n2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			policy := tt.policy
			if policy == "" {
				policy = doNotSchedule
			}
			p := strategytest.Plan(t, ct.Snapshot(t, append(append([]any{}, tt.nodes...), tt.pods...)...), policy)
			strategytest.Equal(t, "moves", strategytest.Moves(p), tt.want)
			if tt.reason != "" && len(p.Moves) > 0 && p.Moves[0].Reason != tt.reason {
				t.Errorf("reason %q, want %q", p.Moves[0].Reason, tt.reason)
			}
			if len(tt.want) == 0 && len(p.Skipped) > 0 {
				t.Errorf("skipped %+v; a balanced or unfixable spread proposes nothing", p.Skipped)
			}
		})
	}
}

// The guard holds every strategy's moves to the spread: LowNodeUtilization
// would take web's only pod out of zone-a, which the scheduler's filter
// allows (it checks the target's domain, not the one the pod leaves) and
// which leaves zone-a empty and the zones skewed past maxSkew.
func TestGuardKeepsTopologySpread(t *testing.T) {
	spread := func(b *ct.PodBuilder) *ct.PodBuilder {
		return b.Spread(zone, 3, corev1.DoNotSchedule, map[string]string{"app": "web"})
	}
	objs := []any{
		ct.Node("n1").Zone("zone-a"), ct.Node("n2").Zone("zone-b"), ct.Node("n3").Zone("zone-c"),
		ct.DeploymentReplicaSet("shop", "web"),
		ct.Pod("shop", "filler-1").On("n1").Requests("3", "").Annotate("rebalancer.dev/evict", "false").OwnedBy("StatefulSet", "f1"),
		ct.Pod("shop", "filler-2").On("n2").Requests("1200m", "").Annotate("rebalancer.dev/evict", "false").OwnedBy("StatefulSet", "f2"),
		spread(ct.Pod("shop", "web-a").On("n1").Requests("100m", "").Deployment("web").Priority(-1)),
	}
	for i := range 4 {
		objs = append(objs, spread(ct.Pod("shop", fmt.Sprintf("web-b%d", i)).On("n2").Requests("10m", "").Deployment("web")))
	}
	for i := range 2 {
		objs = append(objs, spread(ct.Pod("shop", fmt.Sprintf("web-c%d", i)).On("n3").Requests("10m", "").Deployment("web")))
	}
	lnu := "strategies:\n  LowNodeUtilization:\n    thresholds: {cpu: 20}\n    targetThresholds: {cpu: 50}\n"
	strategytest.Equal(t, "LowNodeUtilization alone", strategytest.Moves(strategytest.Plan(t, ct.Snapshot(t, objs...), lnu)), []string{"shop/web-a n1→n3"})
	p := strategytest.Plan(t, ct.Snapshot(t, objs...), lnu+"  RemovePodsViolatingTopologySpreadConstraint: {}\n")
	strategytest.Equal(t, "with the spread strategy", strategytest.Moves(p), nil)
}
