package strategies_test

import (
	"fmt"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

// The tests of this file show, strategy by strategy, that a strategy that
// chooses among pods takes the cheapest first, by the pod-deletion-cost
// annotation the ReplicaSet controller scales down by: one pod annotated
// changes which pods leave, not how many.

// costs annotates pods of a group by name with a deletion cost.
type costs map[string]string

func (c costs) on(name string, b *ct.PodBuilder) *ct.PodBuilder {
	if v, ok := c[name]; ok {
		return b.Annotate(corev1.PodDeletionCost, v)
	}
	return b
}

func TestCheapestPodsLeaveFirst(t *testing.T) {
	// Three web pods on n1 of three nodes, web-2 the youngest.
	duplicates := func(c costs) []any {
		out := []any{ct.Node("n1"), ct.Node("n2"), ct.Node("n3"), ct.DeploymentReplicaSet("shop", "web")}
		for i := range 3 {
			name := fmt.Sprintf("web-%d", i)
			out = append(out, c.on(name, ct.Pod("shop", name).On("n1").Requests("100m", "").Deployment("web").CreatedAgo(time.Duration(10-i)*time.Hour)))
		}
		return out
	}
	// Seven pods of 400m on hot (70% of its cpu), idle empty: two leave
	// for hot to be within 50%.
	utilization := func(c costs) []any {
		out := []any{ct.Node("hot"), ct.Node("idle"), ct.DeploymentReplicaSet("shop", "web")}
		for i := range 7 {
			name := fmt.Sprintf("web-%d", i)
			out = append(out, c.on(name, ct.Pod("shop", name).On("hot").Requests("400m", "").Deployment("web")))
		}
		return out
	}
	// Three web pods in zone-a, maxSkew 1 over three zones: two leave.
	spread := func(c costs) []any {
		out := []any{ct.Node("n1").Zone("zone-a"), ct.Node("n2").Zone("zone-b"), ct.Node("n3").Zone("zone-c")}
		return append(out, strategytest.ZonePods(map[string]int{"n1": 3}, []string{"n1"}, func(b *ct.PodBuilder) *ct.PodBuilder {
			return c.on(b.Obj().Name, strategytest.SpreadOn(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule)(b))
		})...)
	}
	// Three replicas on n1 that avoid each other by hostname: two leave,
	// the youngest (c-2) first.
	antiAffinity := func(c costs) []any {
		out := []any{ct.Node("n1"), ct.Node("n2"), ct.Node("n3")}
		for i := range 3 {
			name := fmt.Sprintf("c-%d", i)
			out = append(out, c.on(name, ct.Pod("shop", name).On("n1").Requests("100m", "").Label("app", "c").OwnedBy("StatefulSet", "c").
				AntiAffinity(corev1.LabelHostname, map[string]string{"app": "c"}).CreatedAgo(time.Duration(3-i)*time.Hour)))
		}
		return out
	}
	// Three pods older than a day; the limit lets one go, the oldest
	// (old-0) first.
	lifetime := func(c costs) []any {
		out := []any{ct.Node("n1"), ct.Node("n2"), ct.DeploymentReplicaSet("shop", "old")}
		for i := range 3 {
			name := fmt.Sprintf("old-%d", i)
			out = append(out, c.on(name, ct.Pod("shop", name).On("n1").Requests("100m", "").Deployment("old").CreatedAgo(time.Duration(50-i)*time.Hour)))
		}
		return out
	}
	// a-0 and b-0 on two nodes tainted since; the limit lets one go, a-0
	// first in node order.
	tainted := func(c costs) []any {
		out := []any{ct.Node("n1").Taint("dedicated", "gpu", corev1.TaintEffectNoSchedule),
			ct.Node("n2").Taint("dedicated", "gpu", corev1.TaintEffectNoSchedule), ct.Node("n3")}
		for i, node := range []string{"n1", "n2"} {
			name := fmt.Sprintf("%c-0", 'a'+i)
			out = append(out, c.on(name, ct.Pod("shop", name).On(node).Requests("100m", "").OwnedBy("ReplicaSet", "web")))
		}
		return out
	}
	const (
		taintPolicy    = "limits: {total: 1}\nstrategies:\n  RemovePodsViolatingNodeTaints: {}\n"
		dupPolicy      = "strategies:\n  RemoveDuplicates: {}\n"
		lnuPolicy      = "strategies:\n  LowNodeUtilization:\n    thresholds: {cpu: 20}\n    targetThresholds: {cpu: 50}\n"
		spreadPolicy   = "strategies:\n  RemovePodsViolatingTopologySpreadConstraint: {}\n"
		antiPolicy     = "strategies:\n  RemovePodsViolatingInterPodAntiAffinity: {}\n"
		lifetimePolicy = "limits: {total: 1}\nstrategies:\n  PodLifeTime: {maxPodLifeTimeSeconds: 86400}\n"
	)
	tests := []struct {
		name   string
		objs   []any
		policy string
		want   []string // moved pods, sorted
	}{
		{name: "RemovePodsViolatingNodeTaints: in node order", objs: tainted(nil), policy: taintPolicy,
			want: []string{"shop/a-0"}},
		{name: "RemovePodsViolatingNodeTaints: the cheapest first", objs: tainted(costs{"b-0": "-1"}), policy: taintPolicy,
			want: []string{"shop/b-0"}},
		{name: "RemoveDuplicates: the youngest leave", objs: duplicates(nil), policy: dupPolicy,
			want: []string{"shop/web-1", "shop/web-2"}},
		{name: "RemoveDuplicates: a negative cost makes the oldest leave first", objs: duplicates(costs{"web-0": "-100"}), policy: dupPolicy,
			want: []string{"shop/web-0", "shop/web-2"}},
		{name: "RemoveDuplicates: a positive cost keeps the youngest", objs: duplicates(costs{"web-2": "100"}), policy: dupPolicy,
			want: []string{"shop/web-0", "shop/web-1"}},
		{name: "RemoveDuplicates: an invalid cost counts as none", objs: duplicates(costs{"web-2": "+100"}), policy: dupPolicy,
			want: []string{"shop/web-1", "shop/web-2"}},
		{name: "LowNodeUtilization: equal pods leave by name", objs: utilization(nil), policy: lnuPolicy,
			want: []string{"shop/web-0", "shop/web-1"}},
		{name: "LowNodeUtilization: the cheapest pods leave first", objs: utilization(costs{"web-5": "-1", "web-6": "-2"}), policy: lnuPolicy,
			want: []string{"shop/web-5", "shop/web-6"}},
		{name: "LowNodeUtilization: dearer pods stay", objs: utilization(costs{"web-0": "5", "web-1": "5"}), policy: lnuPolicy,
			want: []string{"shop/web-2", "shop/web-3"}},
		{name: "topology spread: equal pods leave by name", objs: spread(nil), policy: spreadPolicy,
			want: []string{"shop/web-0", "shop/web-1"}},
		{name: "topology spread: the cheapest pods leave first", objs: spread(costs{"web-2": "-5"}), policy: spreadPolicy,
			want: []string{"shop/web-0", "shop/web-2"}},
		{name: "inter-pod anti-affinity: the youngest leave", objs: antiAffinity(nil), policy: antiPolicy,
			want: []string{"shop/c-1", "shop/c-2"}},
		{name: "inter-pod anti-affinity: the cheapest leaves first", objs: antiAffinity(costs{"c-0": "-1"}), policy: antiPolicy,
			want: []string{"shop/c-0", "shop/c-2"}},
		{name: "PodLifeTime: the oldest leaves", objs: lifetime(nil), policy: lifetimePolicy,
			want: []string{"shop/old-0"}},
		{name: "PodLifeTime: the cheapest leaves before the oldest", objs: lifetime(costs{"old-2": "-1"}), policy: lifetimePolicy,
			want: []string{"shop/old-2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := strategytest.Plan(t, ct.Snapshot(t, tt.objs...), tt.policy)
			got := strategytest.Order(p)
			sort.Strings(got)
			strategytest.Equal(t, "moved", got, tt.want)
		})
	}
}

// After the cost comes the priority: among pods of equal cost, the one of
// lower priority goes first, even where a strategy's own order (the
// oldest, the first node) would pick another.
func TestLowerPriorityLeavesFirst(t *testing.T) {
	// old-0 the oldest, old-1 of priority -10; the limit lets one go.
	lifetime := func(c costs) []any {
		out := []any{ct.Node("n1"), ct.Node("n2"), ct.DeploymentReplicaSet("shop", "old")}
		for i := range 2 {
			name := fmt.Sprintf("old-%d", i)
			b := ct.Pod("shop", name).On("n1").Requests("100m", "").Deployment("old").CreatedAgo(time.Duration(50-i) * time.Hour)
			if i == 1 {
				b = b.Priority(-10)
			}
			out = append(out, c.on(name, b))
		}
		return out
	}
	// a-0 on tainted n1, b-0 of priority -10 on tainted n2.
	tainted := func(c costs) []any {
		out := []any{ct.Node("n1").Taint("dedicated", "gpu", corev1.TaintEffectNoSchedule),
			ct.Node("n2").Taint("dedicated", "gpu", corev1.TaintEffectNoSchedule), ct.Node("n3")}
		out = append(out, c.on("a-0", ct.Pod("shop", "a-0").On("n1").Requests("100m", "").OwnedBy("ReplicaSet", "web")))
		out = append(out, c.on("b-0", ct.Pod("shop", "b-0").On("n2").Requests("100m", "").OwnedBy("ReplicaSet", "web").Priority(-10)))
		return out
	}
	const (
		taintPolicy    = "limits: {total: 1}\nstrategies:\n  RemovePodsViolatingNodeTaints: {}\n"
		lifetimePolicy = "limits: {total: 1}\nstrategies:\n  PodLifeTime: {maxPodLifeTimeSeconds: 86400}\n"
	)
	tests := []struct {
		name   string
		objs   []any
		policy string
		want   []string
	}{
		{name: "PodLifeTime: the lower priority before the oldest", objs: lifetime(nil), policy: lifetimePolicy,
			want: []string{"shop/old-1"}},
		{name: "PodLifeTime: the cost before the priority", objs: lifetime(costs{"old-0": "-1"}), policy: lifetimePolicy,
			want: []string{"shop/old-0"}},
		{name: "RemovePodsViolatingNodeTaints: the lower priority before node order", objs: tainted(nil), policy: taintPolicy,
			want: []string{"shop/b-0"}},
		{name: "RemovePodsViolatingNodeTaints: the cost before the priority", objs: tainted(costs{"a-0": "-1"}), policy: taintPolicy,
			want: []string{"shop/a-0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := strategytest.Plan(t, ct.Snapshot(t, tt.objs...), tt.policy)
			strategytest.Equal(t, "moved", strategytest.Order(p), tt.want)
		})
	}
}
