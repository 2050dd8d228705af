package strategies_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

const lnuThreeObservations = `
strategies:
  LowNodeUtilization:
    thresholds: {cpu: 20}
    targetThresholds: {cpu: 50}
    metricsUtilization: {source: KubernetesMetrics, consecutiveObservations: 3}
`

// sample is a node's metrics.k8s.io sample taken in the run'th of runs two
// minutes apart (run 0 at clustertest.Now).
func sample(node, cpu string, run int) cluster.NodeMetrics {
	return ct.NodeUsage(node, cpu, "1Gi", -time.Duration(run)*2*time.Minute)
}

// observations is how a test states counts: "node class count".
func observations(p []cluster.Observation) []string {
	out := []string{}
	for _, o := range p {
		out = append(out, fmt.Sprintf("%s %s %d", o.Node, o.Class, o.Count))
	}
	return out
}

// With consecutiveObservations: 3, a node is over-utilized (hot, 80% of
// 4 CPUs by usage, target 50%) or under-utilized (idle, 5%, threshold 20%)
// only once three runs in a row found it so, each on a newer sample. The
// runs follow each other, each going on from the counts of the one before.
func TestConsecutiveObservations(t *testing.T) {
	pods := [][]any{
		{ct.Node("hot"), ct.Node("idle")},
		strategytest.Pods("hot", "web", 2, "400m"), using("hot", "web", 2, "1500m"),
	}
	type run struct {
		samples []any
		want    []string // moves, "pod from→to"
		notes   []string // "node: text"
		counts  []string // "node class count"
	}
	tests := []struct {
		name    string
		earlier []cluster.Observation
		runs    []run
	}{
		{
			name: "over-utilized in three observations: relieved at the third",
			runs: []run{
				{
					samples: []any{sample("hot", "3200m", 0), sample("idle", "200m", 0)},
					notes: []string{"hot: over-utilized in 1 of 3 consecutive observations: not treated as over-utilized yet",
						"idle: under-utilized in 1 of 3 consecutive observations: not treated as under-utilized yet"},
					counts: []string{"hot over 1", "idle under 1"},
				},
				{
					samples: []any{sample("hot", "3200m", 1), sample("idle", "200m", 1)},
					notes: []string{"hot: over-utilized in 2 of 3 consecutive observations: not treated as over-utilized yet",
						"idle: under-utilized in 2 of 3 consecutive observations: not treated as under-utilized yet"},
					counts: []string{"hot over 2", "idle under 2"},
				},
				{
					samples: []any{sample("hot", "3200m", 2), sample("idle", "200m", 2)},
					want:    []string{"shop/web-hot-0 hot→idle"},
					counts:  []string{"hot over 3", "idle under 3"},
				},
			},
		},
		{
			// metrics-server's window had not moved on between two runs.
			name: "the same sample read by two runs counts once",
			runs: []run{
				{samples: []any{sample("hot", "3200m", 0), sample("idle", "200m", 0)}, counts: []string{"hot over 1", "idle under 1"}},
				{samples: []any{sample("hot", "3200m", 0), sample("idle", "200m", 0)}, counts: []string{"hot over 1", "idle under 1"}},
				{samples: []any{sample("hot", "3200m", 1), sample("idle", "200m", 1)}, counts: []string{"hot over 2", "idle under 2"}},
			},
		},
		{
			// hot's sample of the second run is ten minutes older than
			// idle's: the strategy leaves hot out, and its count starts again.
			name: "a stale sample starts the count again",
			runs: []run{
				{samples: []any{sample("hot", "3200m", 0), sample("idle", "200m", 0)}, counts: []string{"hot over 1", "idle under 1"}},
				{samples: []any{sample("hot", "3200m", -4), sample("idle", "200m", 1)}, counts: []string{"idle under 2"}},
				{samples: []any{sample("hot", "3200m", 2), sample("idle", "200m", 2)}, counts: []string{"hot over 1", "idle under 3"}},
			},
		},
		{
			name: "a node no longer over-utilized starts again",
			runs: []run{
				{samples: []any{sample("hot", "3200m", 0), sample("idle", "200m", 0)}, counts: []string{"hot over 1", "idle under 1"}},
				{samples: []any{sample("hot", "1600m", 1), sample("idle", "200m", 1)}, counts: []string{"idle under 2"}},
				{samples: []any{sample("hot", "3200m", 2), sample("idle", "200m", 2)}, counts: []string{"hot over 1", "idle under 3"}},
			},
		},
		{
			// An earlier run counted gone, a node since removed: its count
			// is not carried on.
			name:    "a removed node's count is dropped",
			earlier: []cluster.Observation{{Strategy: "LowNodeUtilization", Node: "gone", Class: "over", Count: 2, At: ct.Now.Add(-2 * time.Minute)}},
			runs: []run{
				{samples: []any{sample("hot", "3200m", 0), sample("idle", "200m", 0)}, counts: []string{"hot over 1", "idle under 1"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			earlier := tt.earlier
			for i, r := range tt.runs {
				t.Run(fmt.Sprintf("run %d", i+1), func(t *testing.T) {
					p := strategytest.PlanAfter(t, strategytest.Snapshot(t, append(pods, r.samples)...), lnuThreeObservations, earlier)
					strategytest.Equal(t, "moves", strategytest.Moves(p), r.want)
					if r.notes != nil {
						var notes []string
						for _, n := range p.Notes {
							notes = append(notes, n.Node+": "+n.Text)
						}
						strategytest.Equal(t, "notes", notes, r.notes)
					}
					strategytest.Equal(t, "observations", observations(p.Observations), r.counts)
					earlier = p.Observations
				})
			}
		})
	}
}

// HighNodeUtilization counts under-utilized nodes alone: quiet (10% by
// usage, threshold 50%) is emptied onto hot at the second observation.
func TestHighNodeUtilizationConsecutiveObservations(t *testing.T) {
	const policy = `
strategies:
  HighNodeUtilization:
    thresholds: {cpu: 50}
    metricsUtilization: {source: KubernetesMetrics, consecutiveObservations: 2}
`
	objs := func(run int) []any {
		return []any{
			ct.Node("quiet"), ct.Node("hot"),
			sample("quiet", "400m", run), sample("hot", "3200m", run),
		}
	}
	base := [][]any{strategytest.Pods("quiet", "batch", 1, "1"), strategytest.Pods("hot", "web", 1, "1"), using("hot", "web", 1, "3")}
	first := strategytest.PlanAfter(t, strategytest.Snapshot(t, append(base, objs(0))...), policy, nil)
	strategytest.Equal(t, "moves of the first run", strategytest.Moves(first), nil)
	strategytest.Equal(t, "observations of the first run", observations(first.Observations), []string{"quiet under 1"})
	second := strategytest.PlanAfter(t, strategytest.Snapshot(t, append(base, objs(1))...), policy, first.Observations)
	strategytest.Equal(t, "moves of the second run", strategytest.Moves(second), []string{"shop/batch-quiet-0 quiet→hot"})
	strategytest.Equal(t, "observations of the second run", observations(second.Observations), []string{"quiet under 2"})
}

// Unset, consecutiveObservations counts nothing: the plan holds no counts,
// and earlier ones are not carried on.
func TestConsecutiveObservationsUnset(t *testing.T) {
	earlier := []cluster.Observation{{Strategy: "LowNodeUtilization", Node: "hot", Class: "over", Count: 2, At: ct.Now.Add(-2 * time.Minute)}}
	p := strategytest.PlanAfter(t, strategytest.Snapshot(t,
		[]any{ct.Node("hot"), ct.Node("idle"), sample("hot", "3200m", 0), sample("idle", "200m", 0)},
		strategytest.Pods("hot", "web", 2, "400m"), using("hot", "web", 2, "1500m")), lnuByUsage, earlier)
	strategytest.Equal(t, "moves", strategytest.Moves(p), []string{"shop/web-hot-0 hot→idle"})
	if p.Observations != nil {
		t.Errorf("observations = %v, want none", p.Observations)
	}
}
