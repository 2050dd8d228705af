package defragment_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/cluster/synthetic"
	"github.com/kube-rebalancer/rebalancer/planner"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

// fragmented is the generated cluster of 1,000 nodes with each node's free
// CPU cut to 1.5 cores by a bare pod that nothing moves, and 100 pods of
// 3.5 or 3.8 CPU waiting: each needs 2 or 3 of the generated pods (at most
// 1 CPU each) moved off one node.
func fragmented(b *testing.B) *cluster.Snapshot {
	spec := synthetic.Spec{Seed: 1, Nodes: 1000, Pods: 30000}
	objs := synthetic.Generate(spec)
	now := spec.Now
	if now.IsZero() {
		now = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	snap, err := cluster.New(objs, now)
	if err != nil {
		b.Fatal(err)
	}
	objs.Namespaces = append(objs.Namespaces, ct.Namespace("fill", nil), ct.Namespace("wait", nil))
	for _, n := range snap.Nodes() {
		rest := n.Allocatable.MilliCPU - n.Requested.MilliCPU - 1500
		if rest <= 0 {
			continue
		}
		objs.Pods = append(objs.Pods, ct.Pod("fill", "fill-"+n.Name).On(n.Name).
			RequestQuantity(corev1.ResourceCPU, *resource.NewMilliQuantity(rest, resource.DecimalSI)).Obj())
	}
	// The generated pods have priorities below 0: pods that never preempt,
	// as preemption would serve the others.
	never := corev1.PreemptNever
	for i := range 100 {
		ask := []string{"3500m", "3800m"}[i%2]
		objs.Pods = append(objs.Pods, ct.Pod("wait", fmt.Sprintf("big-%02d", i)).Requests(ask, "256Mi").Deployment("big").
			Unschedulable().Edit(func(p *corev1.Pod) {
			p.CreationTimestamp = metav1.NewTime(now.Add(-time.Hour))
			p.Spec.PreemptionPolicy = &never
			p.Status.Conditions[0].LastTransitionTime = metav1.NewTime(now.Add(-10 * time.Minute))
		}).Obj())
	}
	snap, err = cluster.New(objs, now)
	if err != nil {
		b.Fatal(err)
	}
	return snap
}

// BenchmarkDefragment plans one cycle of DefragmentForPendingPods alone on
// the fragmented cluster; the target is within 2 s on one core.
//
//	go test -run '^$' -bench BenchmarkDefragment -benchmem -count 6 -cpu 1 ./strategies/defragment
func BenchmarkDefragment(b *testing.B) {
	snap := fragmented(b)
	pol, err := policy.Load([]byte(strategytest.Header+"strategies:\n  DefragmentForPendingPods: {}\n"), "policy.yaml")
	if err != nil {
		b.Fatal(err)
	}
	eng, err := engine.New(profile.DefaultProfile())
	if err != nil {
		b.Fatal(err)
	}
	pl := &planner.Planner{Policy: pol, Placer: eng}
	var moves, placed int
	b.ReportAllocs()
	for b.Loop() {
		p := pl.Plan(snap)
		moves, placed = len(p.Moves), len(p.Placements)
	}
	b.ReportMetric(float64(moves), "moves")
	b.ReportMetric(float64(placed), "placed")
}
