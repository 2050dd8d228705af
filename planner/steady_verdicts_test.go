package planner

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// What check keeps of a pod is only what no move changes: asked again after
// moves, a pod gets the answer a first asking would give, in check's order
// of reasons, and each strategy gets its own.
func TestStandingKeepsOnlyWhatMovesDoNotChange(t *testing.T) {
	emptyDir := corev1.Volume{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	pol := loadPolicy(t, `limits: {total: 2}
strategies:
  RemoveDuplicates: {}
  PodLifeTime: {maxPodLifeTimeSeconds: 60, evictable: {localStorage: true}}
`)
	snap := busyCluster(t,
		ct.PDB("blog", "web", 0),
		ct.Pod("shop", "web-n1-opted-out").On("n1").Requests("100m", "64Mi").Deployment("web").Annotate(EvictAnnotation, "false"),
		ct.Pod("shop", "web-n1-scratch").On("n1").Requests("100m", "64Mi").Deployment("web").Volume(emptyDir),
	)
	c := (&Planner{Policy: pol, Placer: newEngine(t)}).newCycle(snap)
	const (
		pdb        = "PodDisruptionBudget blog/web allows no disruption now (status.disruptionsAllowed 0)"
		optedOut   = `opted out with rebalancer.dev/evict: "false"`
		scratch    = "uses local storage (emptyDir or hostPath), which eviction would lose; allow with evictable.localStorage"
		totalLimit = "limits.total reached (2 evictions this cycle)"
		moved      = "already moved this cycle"
	)
	steps := []struct {
		name     string
		move     string // the pod a strategy moves before the asking
		strategy string
		pod      string
		want     string
	}{
		{name: "a pod nothing keeps in place", strategy: "RemoveDuplicates", pod: "shop/web-n1-1"},
		{name: "the budget refuses blog's pods", strategy: "RemoveDuplicates", pod: "blog/web-n2-0", want: pdb},
		{name: "a pod opted out", strategy: "RemoveDuplicates", pod: "shop/web-n1-opted-out", want: optedOut},
		{name: "local storage protects it from RemoveDuplicates", strategy: "RemoveDuplicates", pod: "shop/web-n1-scratch", want: scratch},
		{name: "but PodLifeTime's settings allow it", strategy: "PodLifeTime", pod: "shop/web-n1-scratch"},
		{name: "a pod moved is moved", move: "shop/web-n1-1", strategy: "RemoveDuplicates", pod: "shop/web-n1-1", want: moved},
		{name: "one move leaves room under the total", strategy: "RemoveDuplicates", pod: "shop/web-n1-2"},
		{name: "at the total, a pod that passed is refused", move: "shop/api-n1-0", strategy: "RemoveDuplicates", pod: "shop/web-n1-2", want: totalLimit},
		{name: "the total comes before the budget", strategy: "RemoveDuplicates", pod: "blog/web-n2-0", want: totalLimit},
		{name: "a protection comes before the total", strategy: "RemoveDuplicates", pod: "shop/web-n1-opted-out", want: optedOut},
		{name: "each strategy has its own", strategy: "PodLifeTime", pod: "shop/web-n1-scratch", want: totalLimit},
		{name: "and RemoveDuplicates still its own", strategy: "RemoveDuplicates", pod: "shop/web-n1-scratch", want: scratch},
	}
	for _, s := range steps {
		if s.move != "" {
			if o := c.Move("RemoveDuplicates", framework.Candidate{Pod: snap.Pod(s.move), Reason: "test"}); !o.Moved {
				t.Fatalf("%s: moving %s: %s", s.name, s.move, o.Reason)
			}
		}
		if got := c.Evictable(s.strategy, snap.Pod(s.pod)); got != s.want {
			t.Errorf("%s: Evictable(%s, %s) = %q, want %q", s.name, s.strategy, s.pod, got, s.want)
		}
	}
}
