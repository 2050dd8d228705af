package planner

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/test/klogtest"
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
	p := (&Planner{Policy: pol, Placer: newEngine(t)}).Plan(snap)
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

// A strategy whose candidates depend only on each pod and its own node
// runs once when it finds nothing: later moves cannot give it work. One
// that looks for room elsewhere, as preferred node affinity does, runs
// again after the moves. Here RemoveDuplicates moves web-0 in the first
// round, which makes a second round.
func TestRoundsSkipAStrategyThatNoMoveCanGiveWork(t *testing.T) {
	for _, tc := range []struct {
		name, strategy, args string
		runs                 int
	}{
		{"PodLifeTime with only young pods", "PodLifeTime", "{maxPodLifeTimeSeconds: 86400}", 1},
		{"RemovePodsHavingTooManyRestarts without restarts", "RemovePodsHavingTooManyRestarts", "{podRestartThreshold: 5}", 1},
		{"RemovePodsViolatingNodeTaints without taints", "RemovePodsViolatingNodeTaints", "{}", 1},
		{"RemoveFailedPods without failed pods", "RemoveFailedPods", "{}", 1},
		{"required node affinity that every node meets", "RemovePodsViolatingNodeAffinity",
			"{nodeAffinityType: [requiredDuringSchedulingIgnoredDuringExecution]}", 1},
		{"preferred node affinity: a move can make room on a better node", "RemovePodsViolatingNodeAffinity",
			"{nodeAffinityType: [preferredDuringSchedulingIgnoredDuringExecution]}", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := ct.Snapshot(t,
				ct.Node("n1"), ct.Node("n2"),
				ct.DeploymentReplicaSet("shop", "web"),
				ct.Pod("shop", "web-0").On("n1").Requests("100m", "").Deployment("web"),
				ct.Pod("shop", "web-1").On("n1").Requests("100m", "").Deployment("web"),
			)
			logs := klogtest.Capture(t, 1)
			pol := loadPolicy(t, "cooldown: 0s\nstrategies:\n  "+tc.strategy+": "+tc.args+"\n  RemoveDuplicates: {}\n")
			p := (&Planner{Policy: pol, Placer: newEngine(t)}).Plan(snap)
			if len(p.Moves) != 1 {
				t.Fatalf("moves %v, want RemoveDuplicates' one", p.Moves)
			}
			klog.Flush()
			if got := strings.Count(logs.String(), `"Strategy planned" strategy="`+tc.strategy+`"`); got != tc.runs {
				t.Errorf("%s ran %d times, want %d:\n%s", tc.strategy, got, tc.runs, logs)
			}
		})
	}
}
