package schedulerd

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Results of a scheduling attempt, as kube-scheduler's
// scheduler_schedule_attempts_total counts them.
const (
	resultScheduled     = "scheduled"
	resultUnschedulable = "unschedulable"
	resultError         = "error"
)

// How a scheduled pod's node was chosen.
const (
	// placementPlanned: the replacement of an evicted pod went to the node
	// the plan chose for it.
	placementPlanned = "planned"
	// placementAvoidedLeft: the planned node no longer fit; the pod went to
	// the best node other than those its workload just left.
	placementAvoidedLeft = "avoided-left"
	// placementBest: the best node by the profile, as kube-scheduler would
	// choose.
	placementBest = "best"
	// placementHeld: a pending pod went to the node a run freed and held
	// for it.
	placementHeld = "held"
)

// Metrics are what `rebalancer schedule --metrics-addr` serves on /metrics:
// the attempts and their results, in kube-scheduler's terms, how often the
// plan hand-off decided the node, the pods waiting, and the time a Binding
// takes; with the Go runtime's and the process's own metrics.
type Metrics struct {
	Registry *prometheus.Registry

	attempts   *prometheus.CounterVec
	placements *prometheus.CounterVec
	pending    *prometheus.GaugeVec
	binding    prometheus.Histogram
}

// NewMetrics registers the live scheduler's metrics on a fresh registry.
func NewMetrics() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rebalancer_scheduler_schedule_attempts_total",
			Help: "Attempts to schedule a pod, by result: scheduled, unschedulable (fits no node) or error (the Binding failed).",
		}, []string{"result"}),
		placements: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rebalancer_scheduler_placements_total",
			Help: "Pods bound, by how the node was chosen: planned (the node the plan chose for an evicted pod's replacement), avoided-left (the planned node no longer fit; the best node its workload did not just leave), held (the node a run freed and held for a pending pod) or best (the profile's best node).",
		}, []string{"placement"}),
		pending: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "rebalancer_scheduler_pending_pods",
			Help: "Pods this scheduler has to place, by queue, as kube-scheduler's scheduler_pending_pods: active (to be tried), backoff (waiting to be tried again after failing) or unschedulable (waiting for a cluster event that may make them fit).",
		}, []string{"queue"}),
		binding: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "rebalancer_scheduler_binding_duration_seconds",
			Help:    "Time the API server took to answer a Binding.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 15),
		}),
	}
	m.Registry.MustRegister(m.attempts, m.placements, m.pending, m.binding,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// The methods below do nothing on a nil Metrics, so that a Live without
// metrics needs no checks.

func (m *Metrics) attempt(result string) {
	if m != nil {
		m.attempts.WithLabelValues(result).Inc()
	}
}

func (m *Metrics) placed(placement string) {
	if m != nil {
		m.placements.WithLabelValues(placement).Inc()
	}
}

func (m *Metrics) queues(active, backoff, unschedulable int) {
	if m != nil {
		m.pending.WithLabelValues("active").Set(float64(active))
		m.pending.WithLabelValues("backoff").Set(float64(backoff))
		m.pending.WithLabelValues("unschedulable").Set(float64(unschedulable))
	}
}

func (m *Metrics) bound(took time.Duration) {
	if m != nil {
		m.binding.Observe(took.Seconds())
	}
}
