package planner

import (
	"fmt"
	"os"
	"testing"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/synthetic"
	"github.com/kube-rebalancer/rebalancer/policy"
)

// BenchmarkPlan plans one whole cycle on generated clusters up to 5,000
// nodes and 150,000 pods: with the built-in default policy as a CronJob runs
// it (LowNodeUtilization and RemoveDuplicates, at most 5 evictions per node
// and 50 per cycle), with its limits lifted, so that the cycle does all the
// work it finds, and with every strategy but HighNodeUtilization and no
// limits (test/bench/every-strategy.yaml, the policy of make bench).
// Building the snapshot is not timed; see cluster's BenchmarkNew.
//
//	go test -run '^$' -bench BenchmarkPlan -benchmem ./planner
func BenchmarkPlan(b *testing.B) {
	unlimited, err := policy.Load([]byte(`apiVersion: rebalancer.dev/v1alpha1
kind: RebalancePolicy
strategies:
  RemoveDuplicates: {}
  LowNodeUtilization:
    thresholds: {cpu: 20, memory: 20, pods: 20}
    targetThresholds: {cpu: 50, memory: 50, pods: 50}
`), "unlimited.yaml")
	if err != nil {
		b.Fatal(err)
	}
	every := everyStrategy(b)
	policies := []struct {
		name string
		pol  *policy.Policy
	}{{"default", policy.Default()}, {"unlimited", unlimited}, {"every", every}}
	for _, size := range []struct{ nodes, pods int }{{500, 15000}, {5000, 150000}} {
		snap, err := cluster.New(synthetic.Generate(synthetic.Spec{Seed: 1, Nodes: size.nodes, Pods: size.pods}), synthetic.Spec{}.Now)
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range policies {
			b.Run(fmt.Sprintf("policy=%s/nodes=%d/pods=%d", p.name, size.nodes, size.pods), func(b *testing.B) {
				pl := &Planner{Policy: p.pol, Placer: newEngine(b)}
				var moves, skipped int
				b.ReportAllocs()
				for b.Loop() {
					plan := pl.Plan(snap)
					moves, skipped = len(plan.Moves), len(plan.Skipped)
				}
				b.ReportMetric(float64(moves), "moves")
				b.ReportMetric(float64(skipped), "skipped")
			})
		}
	}
}

// everyStrategy is make bench's policy: every strategy but
// HighNodeUtilization, no limits.
func everyStrategy(b *testing.B) *policy.Policy {
	data, err := os.ReadFile("../test/bench/every-strategy.yaml")
	if err != nil {
		b.Fatal(err)
	}
	pol, err := policy.Load(data, "every-strategy.yaml")
	if err != nil {
		b.Fatal(err)
	}
	return pol
}
