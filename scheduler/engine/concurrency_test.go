package engine

import (
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// TestConcurrentSchedulesAgree runs one engine from several goroutines on
// two snapshots at once (under -race this checks the shared tables' locking)
// and checks every answer against a fresh engine's.
func TestConcurrentSchedulesAgree(t *testing.T) {
	build := func(zones int) []corev1.Pod {
		var pods []corev1.Pod
		for i := range 30 {
			pods = append(pods, ct.Pod("default", fmt.Sprintf("p%02d", i)).Pending().
				Label("app", fmt.Sprintf("a%d", i%3)).
				Requests("300m", "512Mi").
				AntiAffinityTerm(ct.AffinityTerm(corev1.LabelHostname, ct.Selector("app", fmt.Sprintf("a%d", i%3)))).
				SpreadConstraint(constraint(corev1.LabelTopologyZone, 2, corev1.ScheduleAnyway)).Obj())
		}
		return pods
	}
	var nodes []corev1.Node
	for i := range 12 {
		nodes = append(nodes, ct.Node(fmt.Sprintf("n%02d", i)).Zone(fmt.Sprintf("z%d", i%3)).Obj())
	}
	snaps := []struct{ pods []corev1.Pod }{{build(3)}, {build(2)}}
	shared := defaultEngine(t)
	var wg sync.WaitGroup
	errs := make(chan string, 200)
	for _, sp := range snaps {
		s := newSnapshot(t, nodes, sp.pods)
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				fresh := defaultEngine(t)
				for i := w; i < 30; i += 4 {
					p := s.Pod(fmt.Sprintf("default/p%02d", i))
					got, want := shared.Schedule(s, p, Options{}), fresh.Schedule(s, p, Options{})
					if got.Node != want.Node || got.Score != want.Score {
						errs <- fmt.Sprintf("%s: shared engine chose %q (%d), a fresh one %q (%d)", p.Key, got.Node, got.Score, want.Node, want.Score)
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
