package scheduler

import (
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestConcurrentSchedulesAgree runs one engine from several goroutines on
// two snapshots at once (under -race this checks the shared tables' locking)
// and checks every answer against a fresh engine's.
func TestConcurrentSchedulesAgree(t *testing.T) {
	build := func(zones int) []corev1.Pod {
		var pods []corev1.Pod
		for i := range 30 {
			pods = append(pods, mkPod(fmt.Sprintf("p%02d", i), podLabels("app", fmt.Sprintf("a%d", i%3)), requests("300m", "512Mi"),
				requiredPodAntiAffinity(podAffinityTerm(corev1.LabelHostname, selectorFor("app", fmt.Sprintf("a%d", i%3)))),
				constraint(corev1.LabelTopologyZone, 2, corev1.ScheduleAnyway)))
		}
		return pods
	}
	var nodes []corev1.Node
	for i := range 12 {
		nodes = append(nodes, mkNode(fmt.Sprintf("n%02d", i), zone(fmt.Sprintf("z%d", i%3))))
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
