package report

import (
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kube-rebalancer/rebalancer/planner"
)

// rebalancer_build_info carries what `rebalancer version` prints.
func TestBuildInfo(t *testing.T) {
	tests := []struct {
		name              string
		opts              MetricsOptions
		version, revision string
	}{
		{"as built", MetricsOptions{Version: "v1.4.0", Revision: "8796a44"}, "v1.4.0", "8796a44"},
		{"nothing given", MetricsOptions{}, "unknown", "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMetricsWith(tt.opts)
			want := `
# HELP rebalancer_build_info 1, with the version, Go version and revision of the binary as labels.
# TYPE rebalancer_build_info gauge
rebalancer_build_info{goversion="` + runtime.Version() + `",revision="` + tt.revision + `",version="` + tt.version + `"} 1
`
			if err := testutil.GatherAndCompare(m.Registry, strings.NewReader(want), "rebalancer_build_info"); err != nil {
				t.Error(err)
			}
		})
	}
}

// The namespace is a label of rebalancer_evictions_total only when asked
// for: it multiplies the series by the namespaces.
func TestEvictionsNamespaceLabel(t *testing.T) {
	tests := []struct {
		name string
		opts MetricsOptions
		want string
	}{
		{
			name: "off (the default)",
			want: `
rebalancer_evictions_total{result="evicted",strategy="LowNodeUtilization"} 1
rebalancer_evictions_total{result="evicted",strategy="RemoveFailedPods"} 1
rebalancer_evictions_total{result="refused",strategy="LowNodeUtilization"} 1
`,
		},
		{
			name: "on",
			opts: MetricsOptions{NamespaceLabel: true},
			want: `
rebalancer_evictions_total{namespace="ci",result="evicted",strategy="RemoveFailedPods"} 1
rebalancer_evictions_total{namespace="shop",result="evicted",strategy="LowNodeUtilization"} 1
rebalancer_evictions_total{namespace="shop",result="refused",strategy="LowNodeUtilization"} 1
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMetricsWith(tt.opts)
			rep := executed()
			start := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
			m.Observe(NewRunRecord(start, start.Add(time.Second), false, rep, nil), rep)
			help := "Planned moves by strategy and result"
			if tt.opts.NamespaceLabel {
				help = "Planned moves by strategy, the pod's namespace and result"
			}
			want := "# HELP rebalancer_evictions_total " + help + " (evicted, refused, denied, gone, failed, not-attempted, surged, rolled-back); dry runs count no result.\n" +
				"# TYPE rebalancer_evictions_total counter" + tt.want
			if err := testutil.GatherAndCompare(m.Registry, strings.NewReader(want), "rebalancer_evictions_total"); err != nil {
				t.Error(err)
			}
		})
	}
}

// Each strategy's planning time is one observation a cycle.
func TestStrategyDuration(t *testing.T) {
	m := NewMetrics()
	m.ObserveStrategies(map[string]time.Duration{"LowNodeUtilization": 30 * time.Millisecond, "PodLifeTime": 2 * time.Millisecond})
	m.ObserveStrategies(map[string]time.Duration{"LowNodeUtilization": 50 * time.Millisecond, "PodLifeTime": time.Millisecond})
	if got := testutil.CollectAndCount(m.strategyTime); got != 2 {
		t.Errorf("rebalancer_strategy_duration_seconds has %d series, want one per strategy: 2", got)
	}
	if err := testutil.GatherAndCompare(m.Registry, strings.NewReader(`
# HELP rebalancer_strategy_duration_seconds Time a cycle spent planning in each strategy, its every round together.
# TYPE rebalancer_strategy_duration_seconds histogram
rebalancer_strategy_duration_seconds_bucket{strategy="LowNodeUtilization",le="0.001"} 0
rebalancer_strategy_duration_seconds_bucket{strategy="LowNodeUtilization",le="0.004"} 0
rebalancer_strategy_duration_seconds_bucket{strategy="LowNodeUtilization",le="0.016"} 0
rebalancer_strategy_duration_seconds_bucket{strategy="LowNodeUtilization",le="0.064"} 2
rebalancer_strategy_duration_seconds_bucket{strategy="LowNodeUtilization",le="0.256"} 2
rebalancer_strategy_duration_seconds_bucket{strategy="LowNodeUtilization",le="1.024"} 2
rebalancer_strategy_duration_seconds_bucket{strategy="LowNodeUtilization",le="4.096"} 2
rebalancer_strategy_duration_seconds_bucket{strategy="LowNodeUtilization",le="16.384"} 2
rebalancer_strategy_duration_seconds_bucket{strategy="LowNodeUtilization",le="65.536"} 2
rebalancer_strategy_duration_seconds_bucket{strategy="LowNodeUtilization",le="262.144"} 2
rebalancer_strategy_duration_seconds_bucket{strategy="LowNodeUtilization",le="+Inf"} 2
rebalancer_strategy_duration_seconds_sum{strategy="LowNodeUtilization"} 0.08
rebalancer_strategy_duration_seconds_count{strategy="LowNodeUtilization"} 2
rebalancer_strategy_duration_seconds_bucket{strategy="PodLifeTime",le="0.001"} 1
rebalancer_strategy_duration_seconds_bucket{strategy="PodLifeTime",le="0.004"} 2
rebalancer_strategy_duration_seconds_bucket{strategy="PodLifeTime",le="0.016"} 2
rebalancer_strategy_duration_seconds_bucket{strategy="PodLifeTime",le="0.064"} 2
rebalancer_strategy_duration_seconds_bucket{strategy="PodLifeTime",le="0.256"} 2
rebalancer_strategy_duration_seconds_bucket{strategy="PodLifeTime",le="1.024"} 2
rebalancer_strategy_duration_seconds_bucket{strategy="PodLifeTime",le="4.096"} 2
rebalancer_strategy_duration_seconds_bucket{strategy="PodLifeTime",le="16.384"} 2
rebalancer_strategy_duration_seconds_bucket{strategy="PodLifeTime",le="65.536"} 2
rebalancer_strategy_duration_seconds_bucket{strategy="PodLifeTime",le="262.144"} 2
rebalancer_strategy_duration_seconds_bucket{strategy="PodLifeTime",le="+Inf"} 2
rebalancer_strategy_duration_seconds_sum{strategy="PodLifeTime"} 0.003
rebalancer_strategy_duration_seconds_count{strategy="PodLifeTime"} 2
`), "rebalancer_strategy_duration_seconds"); err != nil {
		t.Error(err)
	}
}

// The balance figures of a small cluster, worked out by hand: four nodes
// count, a cordoned one and one that is not Ready do not.
//
//	node    cpu before → after   memory    pods
//	a       10 → 30              40        10
//	b       10 → 30              -1        10
//	c       50 → 30              60        30
//	d       50 → 30              80        30
//	e       95 (cordoned)
//	f       0 (not Ready)
//
// cpu before: 0.1, 0.1, 0.5, 0.5: mean 0.3, each 0.2 from it, stddev 0.2;
// after: all 0.3, stddev 0. memory: b offers none of the memory its pods
// request (-1) and is left out: 0.4, 0.6, 0.8, mean 0.6, stddev
// sqrt((0.04+0+0.04)/3). pods: like cpu before, 0.1 to 0.3, stddev 0.1.
func TestBalance(t *testing.T) {
	node := func(name string, cordoned bool, cpuBefore, cpuAfter, memory, pods float64) planner.NodeUsage {
		return planner.NodeUsage{Name: name, Unschedulable: cordoned,
			Before: map[string]float64{"cpu": cpuBefore, "memory": memory, "pods": pods},
			After:  map[string]float64{"cpu": cpuAfter, "memory": memory, "pods": pods}}
	}
	nodes := []planner.NodeUsage{
		node("a", false, 10, 30, 40, 10),
		node("b", false, 10, 30, -1, 10),
		node("c", false, 50, 30, 60, 30),
		node("d", false, 50, 30, 80, 30),
		node("e", true, 95, 95, 95, 95),
		node("f", false, 0, 0, 0, 0),
	}
	ready := func(name string) bool { return name != "f" }

	want := map[string]float64{
		`cpu min before`: 0.1, `cpu max before`: 0.5, `cpu stddev before`: 0.2,
		`cpu min after`: 0.3, `cpu max after`: 0.3, `cpu stddev after`: 0,
		`memory min before`: 0.4, `memory max before`: 0.8, `memory stddev before`: math.Sqrt(0.08 / 3),
		`memory min after`: 0.4, `memory max after`: 0.8, `memory stddev after`: math.Sqrt(0.08 / 3),
		`pods min before`: 0.1, `pods max before`: 0.3, `pods stddev before`: 0.1,
		`pods min after`: 0.1, `pods max after`: 0.3, `pods stddev after`: 0.1,
	}
	m := NewMetrics()
	m.ObserveBalance(nodes, ready)
	if got := testutil.CollectAndCount(m.utilization); got != len(want) {
		t.Errorf("rebalancer_node_utilization_ratio has %d series, want %d", got, len(want))
	}
	for key, v := range want {
		f := strings.Fields(key)
		if got := testutil.ToFloat64(m.utilization.WithLabelValues(f[0], f[1], f[2])); math.Abs(got-v) > 1e-9 {
			t.Errorf("rebalancer_node_utilization_ratio{resource=%q,stat=%q,when=%q} = %v, want %v", f[0], f[1], f[2], got, v)
		}
	}

	// A cycle whose nodes are all left out leaves no figure behind from
	// the cycle before.
	m.ObserveBalance(nodes, func(string) bool { return false })
	if got := testutil.CollectAndCount(m.utilization); got != 0 {
		t.Errorf("with no node counted, rebalancer_node_utilization_ratio has %d series, want none", got)
	}
}

// A cycle that its disruption windows kept from evicting says so apart
// from a dry run asked for: a dashboard tells "paused by policy" from
// "nothing to do".
func TestOutsideWindows(t *testing.T) {
	tests := []struct {
		name string
		rep  *Report
		want float64
	}{
		{"no windows", &Report{}, 0},
		{"inside a window", &Report{DisruptionWindows: &Windows{Evict: true, Open: []int{0}}}, 0},
		{"outside every window", &Report{DisruptionWindows: &Windows{Evict: false}}, 1},
		{"failed before planning", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMetricsWith(MetricsOptions{})
			m.Observe(RunRecord{Start: time.Unix(0, 0), End: time.Unix(1, 0)}, tt.rep)
			if got := testutil.ToFloat64(m.lastWindows); got != tt.want {
				t.Errorf("rebalancer_last_cycle_outside_windows %v, want %v", got, tt.want)
			}
		})
	}
}
