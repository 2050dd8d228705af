package preemption

import (
	"fmt"
	"testing"
	"time"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/schedulertest"
)

// BenchmarkPreempt is one preemption decision on 1,000 full 4-CPU nodes,
// each running four 1-CPU pods of low priority: 1,000 potential nodes, of
// which kube-scheduler's sampling (10%, at least 100) dry-runs 100.
func BenchmarkPreempt(b *testing.B) {
	var objs []any
	for i := range 1000 {
		node := fmt.Sprintf("n%04d", i)
		objs = append(objs, ct.Node(node))
		for j := range 4 {
			objs = append(objs, running(fmt.Sprintf("%s-p%d", node, j), node, int32(j+1), "1", time.Duration(i+j)*time.Minute))
		}
	}
	s := ct.Snapshot(b, append(objs, preemptor(100, "2"))...)
	e := schedulertest.DefaultEngine(b)
	pod := schedulertest.Incoming(b, s)
	res := e.Schedule(s, pod, engine.Options{})
	if res.Node != "" {
		b.Fatalf("the pod fits on %s", res.Node)
	}
	b.ResetTimer()
	for b.Loop() {
		if got := Decide(e, s, pod, res); got.Node == "" || len(got.Victims) != 2 {
			b.Fatalf("Decide chose %q with %d victims; want a node and its two lowest-priority pods", got.Node, len(got.Victims))
		}
	}
}
