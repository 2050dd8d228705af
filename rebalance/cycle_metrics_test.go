package rebalance

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/cluster/kube/kubetest"
	"github.com/kube-rebalancer/rebalancer/report"
)

// series gathers a metric's samples from reg, by their label values in
// the labels' order, joined by spaces; a histogram's by its count.
func series(t *testing.T, reg prometheus.Gatherer, name string) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			var values []string
			for _, l := range m.GetLabel() {
				values = append(values, l.GetValue())
			}
			key := strings.Join(values, " ")
			switch {
			case m.Gauge != nil:
				out[key] = m.GetGauge().GetValue()
			case m.Histogram != nil:
				out[key] = float64(m.GetHistogram().GetSampleCount())
			case m.Counter != nil:
				out[key] = m.GetCounter().GetValue()
			}
		}
	}
	return out
}

// A cycle times each strategy it plans with, and leaves the balance of the
// Ready nodes before and after its plan: the imbalanced cluster's two
// nodes, hot (8 pods of 400m on 4 CPUs: 80%) and idle (none), become 60% and
// 20% with the two moves the policy allows; a node that is not Ready, empty,
// does not count.
func TestCycleMetrics(t *testing.T) {
	client := kubetest.Imbalanced()
	sick := clustertest.Node("sick").NotReady().Obj()
	if err := client.Tracker().Add(&sick); err != nil {
		t.Fatal(err)
	}
	var printed *report.Report
	cfg := testConfig(t, client, &printed)
	r := New(cfg)
	if err := r.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(printed.Moves) != 2 {
		t.Fatalf("%d moves, want 2", len(printed.Moves))
	}
	reg := r.Metrics().Registry

	if got := series(t, reg, "rebalancer_strategy_duration_seconds"); len(got) != 1 || got["LowNodeUtilization"] != 1 {
		t.Errorf("rebalancer_strategy_duration_seconds counts %v, want one observation of LowNodeUtilization", got)
	}

	want := map[string]float64{
		"cpu min before": 0, "cpu max before": 0.8, "cpu stddev before": 0.4,
		"cpu min after": 0.2, "cpu max after": 0.6, "cpu stddev after": 0.2,
	}
	got := series(t, reg, "rebalancer_node_utilization_ratio")
	for key, v := range want {
		g, ok := got[key] // labels sorted by name: resource, stat, when
		if !ok || math.Abs(g-v) > 1e-9 {
			t.Errorf("rebalancer_node_utilization_ratio{%s} = %v (present: %v), want %v", key, g, ok, v)
		}
	}
	if len(got) != 18 {
		t.Errorf("rebalancer_node_utilization_ratio has %d series, want 18 (cpu, memory and pods; min, max and stddev; before and after)", len(got))
	}
}
