package removeduplicates_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

func TestRemoveDuplicates(t *testing.T) {
	web := func(name, node string) *ct.PodBuilder {
		return ct.Pod("shop", name).On(node).Requests("100m", "64Mi").Deployment("web")
	}
	nodes := []any{ct.Node("n1"), ct.Node("n2"), ct.Node("n3"), ct.DeploymentReplicaSet("shop", "web")}
	tests := []struct {
		name   string
		nodes  []any // default: three untainted nodes
		objs   []any
		policy string
		want   []string // "pod node" of the pods that move
	}{
		{
			name: "three replicas on one node of three: two move",
			objs: []any{web("web-0", "n1"), web("web-1", "n1"), web("web-2", "n1")},
			want: []string{"shop/web-0 n1", "shop/web-1 n1"},
		},
		{
			name: "four replicas on three nodes: a node may keep two",
			objs: []any{web("web-0", "n1"), web("web-1", "n1"), web("web-2", "n1"), web("web-3", "n2")},
			want: []string{"shop/web-0 n1"},
		},
		{
			name: "pods with different images are not duplicates",
			objs: []any{web("web-0", "n1"), web("web-1", "n1").Image("registry.example/app:2")},
		},
		{
			name: "pods of different workloads are not duplicates",
			objs: []any{web("web-0", "n1"), ct.DeploymentReplicaSet("shop", "api"),
				ct.Pod("shop", "api-0").On("n1").Requests("100m", "").Deployment("api")},
		},
		{
			name:   "excludeOwnerKinds leaves ReplicaSet-owned pods alone",
			objs:   []any{web("web-0", "n1"), web("web-1", "n1"), web("web-2", "n1")},
			policy: "strategies:\n  RemoveDuplicates: {excludeOwnerKinds: [ReplicaSet]}\n",
		},
		{
			name: "only nodes where the pods fit count: with two homes, two per node",
			nodes: []any{ct.Node("n1"), ct.Node("n2"), ct.DeploymentReplicaSet("shop", "web"),
				// web does not tolerate the taint: ceil(4/2) = 2.
				ct.Node("gpu").Taint("dedicated", "gpu", corev1.TaintEffectNoSchedule)},
			objs: []any{web("web-0", "n1"), web("web-1", "n1"), web("web-2", "n1"), web("web-3", "n2")},
			want: []string{"shop/web-0 n1"},
		},
		{
			name: "a StatefulSet's pods are duplicates too",
			objs: []any{
				ct.Pod("shop", "db-0").On("n1").Requests("100m", "").OwnedBy("StatefulSet", "db"),
				ct.Pod("shop", "db-1").On("n1").Requests("100m", "").OwnedBy("StatefulSet", "db"),
			},
			want: []string{"shop/db-0 n1"},
		},
		{
			// The descheduler counts the duplicates on the nodes it
			// balances across: 5+3 over n1 and n2 is four a node, and
			// the replica on the unmanaged node does not raise it to
			// ceil(9/2) = 5.
			name: "replicas on a node the policy does not select are not counted",
			nodes: []any{ct.Node("n1").Label("pool", "web"), ct.Node("n2").Label("pool", "web"), ct.Node("n3"),
				ct.DeploymentReplicaSet("shop", "web")},
			objs: []any{web("web-0", "n1"), web("web-1", "n1"), web("web-2", "n1"), web("web-3", "n1"), web("web-4", "n1"),
				web("web-5", "n2"), web("web-6", "n2"), web("web-7", "n2"), web("web-8", "n3")},
			policy: "nodeSelector: {matchLabels: {pool: web}}\nstrategies:\n  RemoveDuplicates: {}\n",
			want:   []string{"shop/web-0 n1"},
		},
		{
			name: "replicas on a NotReady node are not counted",
			nodes: []any{ct.Node("n1"), ct.Node("n2"), ct.Node("n3").NotReady(),
				ct.DeploymentReplicaSet("shop", "web")},
			objs: []any{web("web-0", "n1"), web("web-1", "n1"), web("web-2", "n1"), web("web-3", "n1"), web("web-4", "n1"),
				web("web-5", "n2"), web("web-6", "n2"), web("web-7", "n2"), web("web-8", "n3")},
			want: []string{"shop/web-0 n1"},
		},
		{
			// Two replicas of n1 are being deleted (a rollout, or an
			// eviction whose grace period outlasts the cooldown): they
			// are no replicas any more. n1 holds one live pod of three,
			// its share.
			name: "terminating pods are not counted: a healthy replica beside them stays",
			objs: []any{web("web-0", "n1").Terminating(), web("web-1", "n1").Terminating(), web("web-2", "n1"),
				web("web-3", "n2"), web("web-4", "n3")},
		},
		{
			// Three live replicas on n1 and a terminating one on n2: one
			// live pod per node is the share, and n2 has room for one.
			name: "a terminating pod does not fill its node's share",
			objs: []any{web("web-0", "n1"), web("web-1", "n1"), web("web-2", "n1"), web("web-3", "n2").Terminating()},
			want: []string{"shop/web-0 n1", "shop/web-1 n1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			policy := tt.policy
			if policy == "" {
				policy = "strategies:\n  RemoveDuplicates: {}\n"
			}
			base := tt.nodes
			if base == nil {
				base = nodes
			}
			p := strategytest.Plan(t, ct.Snapshot(t, append(append([]any{}, base...), tt.objs...)...), policy)
			strategytest.Equal(t, "moved", strategytest.MovedFrom(p), tt.want)
			for _, m := range p.Moves {
				if m.To == m.From || m.To == "" {
					t.Errorf("%s moves from %s to %q", m.Pod, m.From, m.To)
				}
			}
		})
	}
}

// Moves never pile the pods up elsewhere: each target holds at most its
// share after the move.
func TestRemoveDuplicatesTargetsNodesBelowTheirShare(t *testing.T) {
	objs := []any{ct.Node("n1"), ct.Node("n2"), ct.Node("n3"), ct.DeploymentReplicaSet("shop", "web")}
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		objs = append(objs, ct.Pod("shop", "web-"+name).On("n1").Requests("100m", "").Deployment("web"))
	}
	objs = append(objs, ct.Pod("shop", "web-f").On("n2").Requests("100m", "").Deployment("web"))
	p := strategytest.Plan(t, ct.Snapshot(t, objs...), "strategies:\n  RemoveDuplicates: {}\n")
	// Six pods, three nodes: two each. n1 gives three: one to n2, two to n3.
	to := map[string]int{}
	for _, m := range p.Moves {
		to[m.To]++
	}
	if len(p.Moves) != 3 || to["n2"] != 1 || to["n3"] != 2 {
		t.Errorf("moves %v, want one to n2 and two to n3", strategytest.Moves(p))
	}
}

// With RemoveDuplicates in the policy, other strategies' moves respect its
// share: the taint strategy alone sends web-0 to the node its preferred
// affinity favours, which already holds its one web pod, and
// RemoveDuplicates would move one away on the next run.
func TestGuardKeepsDuplicatesShare(t *testing.T) {
	web := func(name, node string) *ct.PodBuilder {
		return ct.Pod("shop", name).On(node).Requests("100m", "").Deployment("web").PreferNodeLabelIn(100, "disk", "ssd")
	}
	objs := strategytest.Objects([]any{
		ct.Node("t").Taint("maintenance", "", corev1.TaintEffectNoSchedule), ct.Node("a").Label("disk", "ssd"), ct.Node("b"), ct.Node("c"),
		ct.DeploymentReplicaSet("shop", "web"), web("web-0", "t"), web("web-1", "a"), web("web-2", "b"),
	})
	taints := "strategies:\n  RemovePodsViolatingNodeTaints: {}\n"
	strategytest.Equal(t, "taints alone", strategytest.Moves(strategytest.Plan(t, strategytest.Build(t, objs), taints)), []string{"shop/web-0 t→a"})
	policy := taints + "  RemoveDuplicates: {}\n"
	p := strategytest.Plan(t, strategytest.Build(t, objs), policy)
	strategytest.Equal(t, "with RemoveDuplicates", strategytest.Moves(p), []string{"shop/web-0 t→c"})
	strategytest.Equal(t, "moves of the next run", strategytest.Moves(strategytest.Plan(t, strategytest.AfterPlan(t, objs, p), policy)), nil)
}
