package report

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/push"
)

// Metrics are the Prometheus metrics of the cycles a process runs.
type Metrics struct {
	Registry *prometheus.Registry

	planned   *prometheus.CounterVec
	evictions *prometheus.CounterVec
	skipped   *prometheus.CounterVec
	duration  prometheus.Histogram
	lastRun   prometheus.Gauge
	lastOK    prometheus.Gauge
	lastMoves prometheus.Gauge
}

// NewMetrics registers the metrics on a fresh registry.
func NewMetrics() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		planned: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rebalancer_moves_planned_total", Help: "Moves planned, by strategy.",
		}, []string{"strategy"}),
		evictions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rebalancer_evictions_total", Help: "Planned moves by strategy and result (evicted, refused, gone, failed, not-attempted); dry runs count no result.",
		}, []string{"strategy", "result"}),
		skipped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rebalancer_candidates_skipped_total", Help: "Candidates left in place, by category of reason.",
		}, []string{"category"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "rebalancer_cycle_duration_seconds", Help: "Duration of a cycle: snapshot, plan and evictions.",
			Buckets: prometheus.ExponentialBuckets(0.1, 2, 12),
		}),
		lastRun: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "rebalancer_last_cycle_timestamp_seconds", Help: "When the last cycle ended, in Unix seconds.",
		}),
		lastOK: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "rebalancer_last_cycle_success", Help: "1 when the last cycle ended without a runtime error, else 0.",
		}),
		lastMoves: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "rebalancer_last_cycle_moves", Help: "Moves planned by the last cycle.",
		}),
	}
	m.Registry.MustRegister(m.planned, m.evictions, m.skipped, m.duration, m.lastRun, m.lastOK, m.lastMoves)
	return m
}

// Observe records one cycle.
func (m *Metrics) Observe(r *Report, took time.Duration, failed bool) {
	for _, mv := range r.Moves {
		m.planned.WithLabelValues(mv.Strategy).Inc()
		if mv.Result != "" {
			m.evictions.WithLabelValues(mv.Strategy, string(mv.Result)).Inc()
		}
	}
	for cat, n := range r.Summary.Skipped {
		m.skipped.WithLabelValues(string(cat)).Add(float64(n))
	}
	m.duration.Observe(took.Seconds())
	m.lastRun.SetToCurrentTime()
	m.lastMoves.Set(float64(len(r.Moves)))
	if failed {
		m.lastOK.Set(0)
	} else {
		m.lastOK.Set(1)
	}
}

// Push sends the metrics to a Prometheus Pushgateway under job "rebalancer",
// replacing what the previous run pushed: a CronJob's process is gone before
// any scrape could reach it.
func (m *Metrics) Push(ctx context.Context, url string) error {
	return push.New(url, "rebalancer").Gatherer(m.Registry).PushContext(ctx)
}
