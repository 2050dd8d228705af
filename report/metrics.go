package report

import (
	"context"
	"runtime"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/push"

	"github.com/kube-rebalancer/rebalancer/evictor"
)

// Metrics are the Prometheus metrics of the cycles a process runs.
// docs/monitoring.md documents each of them and the alerts built on them.
type Metrics struct {
	Registry *prometheus.Registry

	// namespaceLabel: evictions has a namespace label.
	namespaceLabel bool

	buildInfo     *prometheus.GaugeVec
	planned       *prometheus.CounterVec
	evictions     *prometheus.CounterVec
	strategyTime  *prometheus.HistogramVec
	utilization   *prometheus.GaugeVec
	skipped       *prometheus.CounterVec
	duration      prometheus.Histogram
	lastRun       prometheus.Gauge
	lastOK        prometheus.Gauge
	lastMoves     prometheus.Gauge
	lastDryRun    prometheus.Gauge
	lastWindows   prometheus.Gauge
	lastEvictions *prometheus.GaugeVec
	lastSteps     *prometheus.GaugeVec
	lastLost      *prometheus.GaugeVec
	// lastSuccess has no labels; a vector so that it can be absent while no
	// cycle is known to have succeeded, rather than claim 1970.
	lastSuccess *prometheus.GaugeVec
}

// results are every result a move can have, so that the last cycle's
// evictions are exported as 0 rather than absent when none had that result.
var results = []evictor.Result{evictor.Evicted, evictor.Refused, evictor.Denied, evictor.Gone, evictor.Failed, evictor.NotAttempted,
	evictor.Surged, evictor.RolledBack}

// MetricsOptions are the choices a process makes about its metrics once,
// before they are registered.
type MetricsOptions struct {
	// Version and Revision are rebalancer_build_info's labels, as
	// `rebalancer version` prints them; empty: "unknown".
	Version, Revision string
	// NamespaceLabel adds the pod's namespace to rebalancer_evictions_total.
	// Off by default: a series per namespace and strategy and result can be
	// many in a cluster of many namespaces.
	NamespaceLabel bool
}

// NewMetrics registers the metrics on a fresh registry, with the default
// options.
func NewMetrics() *Metrics { return NewMetricsWith(MetricsOptions{}) }

// NewMetricsWith registers the metrics on a fresh registry.
func NewMetricsWith(o MetricsOptions) *Metrics {
	evictionLabels := []string{"strategy", "result"}
	evictionHelp := "Planned moves by strategy and result (evicted, refused, denied, gone, failed, not-attempted, surged, rolled-back); dry runs count no result."
	if o.NamespaceLabel {
		evictionLabels = []string{"strategy", "namespace", "result"}
		evictionHelp = "Planned moves by strategy, the pod's namespace and result (evicted, refused, denied, gone, failed, not-attempted, surged, rolled-back); dry runs count no result."
	}
	m := &Metrics{
		Registry:       prometheus.NewRegistry(),
		namespaceLabel: o.NamespaceLabel,
		buildInfo:      NewBuildInfo(o.Version, o.Revision),
		planned: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rebalancer_moves_planned_total", Help: "Moves planned, by strategy.",
		}, []string{"strategy"}),
		evictions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rebalancer_evictions_total", Help: evictionHelp,
		}, evictionLabels),
		strategyTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "rebalancer_strategy_duration_seconds", Help: "Time a cycle spent planning in each strategy, its every round together.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10),
		}, []string{"strategy"}),
		utilization: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "rebalancer_node_utilization_ratio",
			Help: "Spread of the requested share of allocatable (the report's node table) over the nodes the policy selects that are Ready and not cordoned, " +
				"by resource (cpu, memory, pods), stat (min, max, stddev) and when (before: the cluster as the last cycle that planned read it; after: as its plan leaves it).",
		}, []string{"resource", "stat", "when"}),
		skipped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rebalancer_candidates_skipped_total", Help: "Candidates left in place, by category of reason.",
		}, []string{"category"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "rebalancer_cycle_duration_seconds", Help: "Duration of a cycle: snapshot, plan and evictions.",
			Buckets: prometheus.ExponentialBuckets(0.1, 2, 12),
		}),
		lastRun: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "rebalancer_last_cycle_timestamp_seconds", Help: "When the last cycle ended, in Unix seconds, whether it succeeded or not.",
		}),
		lastOK: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "rebalancer_last_cycle_success", Help: "1 when the last cycle ended without an error, else 0 (invalid policy, API server unreachable, a failed eviction).",
		}),
		lastMoves: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "rebalancer_last_cycle_moves", Help: "Moves planned by the last cycle.",
		}),
		lastDryRun: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "rebalancer_last_cycle_dry_run", Help: "1 when the last cycle was a dry run, which evicts nothing.",
		}),
		lastWindows: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "rebalancer_last_cycle_outside_windows", Help: "1 when the last cycle started outside every disruption window that allows evictions, or inside one with evict: false, and so evicted nothing; 0 otherwise, and when the policy has no windows.",
		}),
		lastEvictions: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "rebalancer_last_cycle_evictions", Help: "Planned moves of the last cycle by result (evicted, refused, denied, gone, failed, not-attempted, surged, rolled-back).",
		}, []string{"result"}),
		lastSteps: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "rebalancer_last_cycle_steps", Help: "Steps of the last cycle's plan (state planned) and how many it started (state started); fewer started than planned: it stopped early, and its report says why.",
		}, []string{"state"}),
		lastLost: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "rebalancer_last_cycle_events_lost", Help: "Events the last cycle recorded on the pods it touched that never reached the API server, by reason (forbidden: no permission to create events; rejected: refused otherwise; unwritten: not written before the run ended).",
		}, []string{"reason"}),
		lastSuccess: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "rebalancer_last_success_timestamp_seconds", Help: "When the last cycle that succeeded ended, in Unix seconds; carried across CronJob runs by the state ConfigMap's last-run record.",
		}, nil),
	}
	m.Registry.MustRegister(m.buildInfo, m.planned, m.evictions, m.strategyTime, m.utilization, m.skipped, m.duration, m.lastRun, m.lastOK, m.lastMoves,
		m.lastDryRun, m.lastWindows, m.lastEvictions, m.lastSteps, m.lastLost, m.lastSuccess)
	return m
}

// NewBuildInfo returns rebalancer_build_info, for the registry of every
// command that serves or pushes metrics: dashboards tell versions apart
// by it.
func NewBuildInfo(version, revision string) *prometheus.GaugeVec {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "rebalancer_build_info", Help: "1, with the version, Go version and revision of the binary as labels.",
	}, []string{"version", "goversion", "revision"})
	g.WithLabelValues(orUnknown(version), runtime.Version(), orUnknown(revision)).Set(1)
	return g
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// Observe records one run: rec says how it went, rep (nil when the run
// failed before planning) what it planned and did.
func (m *Metrics) Observe(rec RunRecord, rep *Report) {
	if rep != nil {
		for _, mv := range rep.Moves {
			m.planned.WithLabelValues(mv.Strategy).Inc()
			switch {
			case mv.Result == "":
			case m.namespaceLabel:
				ns, _, _ := strings.Cut(mv.Pod, "/")
				m.evictions.WithLabelValues(mv.Strategy, ns, string(mv.Result)).Inc()
			default:
				m.evictions.WithLabelValues(mv.Strategy, string(mv.Result)).Inc()
			}
		}
	}
	for cat, n := range rec.Skipped {
		m.skipped.WithLabelValues(string(cat)).Add(float64(n))
	}
	for _, res := range results {
		m.lastEvictions.WithLabelValues(string(res)).Set(float64(rec.Results[res]))
	}
	for _, reason := range evictor.LostReasons {
		n := 0
		if rep != nil && rep.EventsLost != nil {
			n = rep.EventsLost.Reasons[reason]
		}
		m.lastLost.WithLabelValues(reason).Set(float64(n))
	}
	m.lastSteps.WithLabelValues("planned").Set(float64(rec.Steps))
	m.lastSteps.WithLabelValues("started").Set(float64(rec.StepsStarted))
	m.duration.Observe(rec.End.Sub(rec.Start).Seconds())
	m.lastRun.Set(unixSeconds(rec.End))
	m.lastMoves.Set(float64(rec.Moves))
	m.lastOK.Set(boolValue(rec.Succeeded))
	m.lastDryRun.Set(boolValue(rec.DryRun))
	m.lastWindows.Set(boolValue(rep != nil && rep.DisruptionWindows != nil && !rep.DisruptionWindows.Evict))
	if rec.LastSuccess != nil {
		m.lastSuccess.WithLabelValues().Set(unixSeconds(*rec.LastSuccess))
	}
}

func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Push sends the metrics to a Prometheus Pushgateway under job "rebalancer"
// and the instance, replacing what the previous run of that instance
// pushed: a CronJob's process is gone before any scrape could reach it.
func (m *Metrics) Push(ctx context.Context, url, instance string) error {
	return push.New(url, "rebalancer").Grouping("instance", instance).Gatherer(m.Registry).PushContext(ctx)
}

// WriteFile writes the metrics in Prometheus' text format to path, through
// a temporary file and a rename, so that node-exporter's textfile collector
// (which reads *.prom files) never reads half a file.
func (m *Metrics) WriteFile(path string) error {
	return prometheus.WriteToTextfile(path, m.Registry)
}

// ObserveStrategies records how long one cycle spent planning in each
// strategy.
func (m *Metrics) ObserveStrategies(took map[string]time.Duration) {
	for name, d := range took {
		m.strategyTime.WithLabelValues(name).Observe(d.Seconds())
	}
}
