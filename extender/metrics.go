package extender

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics of `rebalancer extender`; docs/monitoring.md documents them.
type Metrics struct {
	Registry *prometheus.Registry

	requests *prometheus.CounterVec
	steered  prometheus.Counter
	declined *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

// Why a replacement was not steered.
const (
	declinedInfeasible = "planned-node-infeasible"
	// The workload's intents are of evictions whose pods still run under
	// their UIDs: the pod is not a replacement of theirs.
	declinedStillRunning = "evicted-pod-still-running"
)

// NewMetrics registers the metrics on a fresh registry, with the Go and
// process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rebalancer_extender_requests_total", Help: "Requests from kube-scheduler, by verb (filter, prioritize) and code (ok, bad-request).",
		}, []string{"verb", "code"}),
		steered: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rebalancer_extender_steered_total", Help: "Filter requests of a replacement answered with only its planned node, or of a pending pod with only the node held for it.",
		}),
		declined: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rebalancer_extender_declined_total", Help: "Filter requests of a replacement, or of a pending pod a node is held for, passed through unsteered, by reason.",
		}, []string{"reason"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "rebalancer_extender_request_duration_seconds", Help: "Time to answer a request, by verb.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 8),
		}, []string{"verb"}),
	}
	m.Registry.MustRegister(m.requests, m.steered, m.declined, m.latency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}
