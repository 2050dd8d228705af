package nodeaffinity_test

import (
	"fmt"
	"strings"
	"testing"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

func TestRemovePodsViolatingNodeAffinity(t *testing.T) {
	const required = "strategies:\n  RemovePodsViolatingNodeAffinity: {nodeAffinityType: [requiredDuringSchedulingIgnoredDuringExecution]}\n"
	const preferred = "strategies:\n  RemovePodsViolatingNodeAffinity: {nodeAffinityType: [preferredDuringSchedulingIgnoredDuringExecution]}\n"
	db := func(name, node string) *ct.PodBuilder {
		return ct.Pod("shop", name).On(node).Requests("500m", "").OwnedBy("StatefulSet", "db")
	}
	tests := []struct {
		name   string
		objs   []any
		policy string
		want   []string
		reason string
	}{
		{
			// The docs' example: the pod was scheduled on a node that
			// matched, and the node's label was removed since.
			name: "a node label removed under a required affinity",
			objs: []any{ct.Node("a"), ct.Node("b").Label("disktype", "ssd"), ct.Node("c").Label("disktype", "hdd"),
				db("db-0", "a").RequireNodeLabelIn("disktype", "ssd"), db("db-1", "b").RequireNodeLabelIn("disktype", "ssd")},
			policy: required,
			want:   []string{"shop/db-0 a→b"},
			reason: "required node affinity disktype In [ssd]: a has no label disktype",
		},
		{
			name: "a nodeSelector the node no longer matches",
			objs: []any{ct.Node("a").Label("disktype", "hdd"), ct.Node("b").Label("disktype", "ssd"),
				db("db-0", "a").NodeSelector("disktype", "ssd")},
			policy: required,
			want:   []string{"shop/db-0 a→b"},
			reason: "nodeSelector disktype=ssd: a has disktype=hdd",
		},
		{
			// Each pod is checked against its own selector, not against
			// the one of the pod before it on the node.
			name: "pods of one node with different nodeSelectors",
			objs: []any{ct.Node("a").Label("disktype", "ssd"), ct.Node("b").Label("disktype", "hdd"),
				db("db-0", "a").NodeSelector("disktype", "ssd"), db("db-1", "a").NodeSelector("disktype", "hdd")},
			policy: required,
			want:   []string{"shop/db-1 a→b"},
			reason: "nodeSelector disktype=hdd: a has disktype=ssd",
		},
		{
			name: "pods of one node with different required affinities",
			objs: []any{ct.Node("a").Label("disktype", "ssd"), ct.Node("b").Label("disktype", "hdd"),
				db("db-0", "a").RequireNodeLabelIn("disktype", "ssd"), db("db-1", "a").RequireNodeLabelIn("disktype", "hdd")},
			policy: required,
			want:   []string{"shop/db-1 a→b"},
			reason: "required node affinity disktype In [hdd]: a has disktype=ssd",
		},
		{
			name: "required affinity is not checked when only preferred is asked for",
			objs: []any{ct.Node("a"), ct.Node("b").Label("disktype", "ssd"),
				db("db-0", "a").RequireNodeLabelIn("disktype", "ssd")},
			policy: preferred,
		},
		{
			name: "preferred: a node with a strictly higher weight that can take the pod",
			objs: []any{ct.Node("a").Zone("zone-a"), ct.Node("b").Zone("zone-b"),
				db("db-0", "a").PreferNodeLabelIn(50, "topology.kubernetes.io/zone", "zone-b")},
			policy: preferred,
			want:   []string{"shop/db-0 a→b"},
			reason: "preferred node affinity weighs 0 on a and 50 on b, which can take the pod",
		},
		{
			name: "preferred: an equal weight elsewhere is no reason to move",
			objs: []any{ct.Node("a").Zone("zone-b"), ct.Node("b").Zone("zone-b"),
				db("db-0", "a").PreferNodeLabelIn(50, "topology.kubernetes.io/zone", "zone-b")},
			policy: preferred,
		},
		{
			name: "preferred: the best node is full, the next better one takes the pod",
			objs: []any{ct.Node("a").Zone("zone-a"), ct.Node("b").Zone("zone-b").Label("disktype", "ssd"), ct.Node("c").Zone("zone-b"),
				ct.Pod("shop", "big").On("b").Requests("3800m", "").OwnedBy("StatefulSet", "big"),
				db("db-0", "a").PreferNodeLabelIn(50, "topology.kubernetes.io/zone", "zone-b").PreferNodeLabelIn(30, "disktype", "ssd")},
			policy: preferred,
			want:   []string{"shop/db-0 a→c"},
		},
		{
			name: "preferred: the replacement goes to the best node that can take it, not only a better one",
			objs: []any{ct.Node("a").Zone("zone-a"), ct.Node("b").Zone("zone-b").Label("disktype", "ssd"), ct.Node("c").Zone("zone-b"),
				// c is emptier, which the scheduler's scoring likes; b
				// matches better.
				ct.Pod("shop", "busy").On("b").Requests("3", "").OwnedBy("StatefulSet", "busy"),
				db("db-0", "a").PreferNodeLabelIn(50, "topology.kubernetes.io/zone", "zone-b").PreferNodeLabelIn(30, "disktype", "ssd")},
			policy: preferred,
			want:   []string{"shop/db-0 a→b"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := strategytest.Plan(t, ct.Snapshot(t, tt.objs...), tt.policy+"evictable: {barePods: true}\n")
			strategytest.Equal(t, "moves", strategytest.Moves(p), tt.want)
			if tt.reason != "" && len(p.Moves) > 0 && p.Moves[0].Reason != tt.reason {
				t.Errorf("reason %q, want %q", p.Moves[0].Reason, tt.reason)
			}
		})
	}
}

// A pod whose required affinity no node matches any more stays where it
// is; the plan says why.
func TestNodeAffinityNoMatchingNode(t *testing.T) {
	snap := ct.Snapshot(t, ct.Node("a"), ct.Node("b"),
		ct.Pod("shop", "db-0").On("a").OwnedBy("StatefulSet", "db").RequireNodeLabelIn("disktype", "ssd"))
	p := strategytest.Plan(t, snap, "strategies:\n  RemovePodsViolatingNodeAffinity: {nodeAffinityType: [requiredDuringSchedulingIgnoredDuringExecution]}\n")
	strategytest.Equal(t, "moves", strategytest.Moves(p), nil)
	if len(p.Skipped) != 1 || !strings.Contains(p.Skipped[0].Reason, "didn't match Pod's node affinity/selector") {
		t.Errorf("skipped %+v, want db-0 with the scheduler's reason", p.Skipped)
	}
}

// With preferred affinity checked, the guard keeps other strategies from
// moving a pod to a node its preferences weigh less than its own: the
// affinity strategy would move it back.
func TestGuardKeepsPreferredAffinity(t *testing.T) {
	objs := []any{ct.DeploymentReplicaSet("shop", "web"), ct.Node("n1").Zone("zone-a"), ct.Node("n2").Zone("zone-a"), ct.Node("n3").Zone("zone-b")}
	for _, name := range []string{"web-0", "web-1", "web-2"} {
		objs = append(objs, ct.Pod("shop", name).On("n1").Requests("100m", "").Deployment("web").PreferNodeLabelIn(10, "topology.kubernetes.io/zone", "zone-a"))
	}
	alone := strategytest.Plan(t, ct.Snapshot(t, objs...), "strategies:\n  RemoveDuplicates: {}\n")
	strategytest.Equal(t, "RemoveDuplicates alone", strategytest.MovedTo(alone), []string{"n2", "n3"})
	both := strategytest.Plan(t, ct.Snapshot(t, objs...), "strategies:\n  RemoveDuplicates: {}\n"+
		"  RemovePodsViolatingNodeAffinity: {nodeAffinityType: [preferredDuringSchedulingIgnoredDuringExecution]}\n")
	strategytest.Equal(t, "with the affinity strategy", strategytest.MovedTo(both), []string{"n2"})
}

// A pod that its preferred node affinity weighs more on other nodes, none
// of which can take it, stays, and the plan's notes count it with why (not
// listed: every replica of a workload that prefers full nodes would be);
// one the planner would not evict, for the planner's reason.
func TestPreferredNodeAffinityWithNoRoom(t *testing.T) {
	const preferred = "strategies:\n  RemovePodsViolatingNodeAffinity: {nodeAffinityType: [preferredDuringSchedulingIgnoredDuringExecution]}\n"
	db := func(name string) *ct.PodBuilder {
		return ct.Pod("shop", name).On("a").Requests("500m", "").OwnedBy("StatefulSet", "db").PreferNodeLabelIn(50, "topology.kubernetes.io/zone", "zone-b")
	}
	const counted = "RemovePodsViolatingNodeAffinity: found 1 pod to move, moved none: 1 %s; 1 of them not proposed, counted here rather than listed as skipped; shop/db-0: %s"
	tests := []struct {
		name string
		pod  *ct.PodBuilder
		want string
	}{
		{"no room", db("db-0"),
			fmt.Sprintf(counted, "no-fit", "preferred node affinity weighs 0 on a, and none of the 1 nodes that it weighs more on can take the pod")},
		{"opted out", db("db-0").Annotate("rebalancer.dev/evict", "false"),
			fmt.Sprintf(counted, "opted-out", `opted out with rebalancer.dev/evict: "false"`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := ct.Snapshot(t, ct.Node("a").Zone("zone-a"), ct.Node("b").Zone("zone-b"),
				ct.Pod("shop", "big").On("b").Requests("3800m", "").OwnedBy("StatefulSet", "big"), tt.pod)
			p := strategytest.Plan(t, snap, preferred)
			strategytest.Equal(t, "moves", strategytest.Moves(p), nil)
			if len(p.Skipped) != 0 {
				t.Errorf("skipped %+v, want none listed", p.Skipped)
			}
			var notes []string
			for _, n := range p.Notes {
				notes = append(notes, n.Strategy+": "+n.Text)
			}
			strategytest.Equal(t, "notes", notes, []string{tt.want})
		})
	}
}
