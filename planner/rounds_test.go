package planner

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// A violating pod that finds no room in the first round moves in the
// next, once a later strategy made room; it is then not reported as
// skipped. v must leave the tainted n1 for n2, the other node of its pool,
// which RemoveDuplicates relieves only after the taint strategy ran.
func TestRoundsLetEarlierStrategiesUseRoomMadeLater(t *testing.T) {
	snap := ct.Snapshot(t,
		ct.Node("n1").Label("pool", "x").Taint("maintenance", "", corev1.TaintEffectNoSchedule),
		ct.Node("n2").Label("pool", "x"), ct.Node("n3"),
		ct.DeploymentReplicaSet("shop", "v"), ct.DeploymentReplicaSet("shop", "web"),
		ct.Pod("shop", "v-0").On("n1").Requests("1", "").Deployment("v").NodeSelector("pool", "x"),
		ct.Pod("shop", "web-0").On("n2").Requests("1200m", "").Deployment("web"),
		ct.Pod("shop", "web-1").On("n2").Requests("1200m", "").Deployment("web"),
		ct.Pod("shop", "web-2").On("n2").Requests("1200m", "").Deployment("web"),
	)
	pol := loadPolicy(t, "cooldown: 0s\nstrategies:\n  RemovePodsViolatingNodeTaints: {}\n  RemoveDuplicates: {}\n")
	p := (&Planner{Policy: pol, Placer: engine(t)}).Plan(snap)
	var got []string
	for _, m := range p.Moves {
		got = append(got, m.Strategy+" "+m.Pod+" "+m.From+"→"+m.To)
	}
	want := []string{"RemoveDuplicates shop/web-0 n2→n3", "RemovePodsViolatingNodeTaints shop/v-0 n1→n2"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("moves %v, want %v", got, want)
	}
	if len(p.Skipped) != 0 {
		t.Errorf("skipped %s, want none: v-0 moved in the second round", skipped(p))
	}
}
