package nodeutilization

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// Meter is what a utilization strategy classifies nodes by: the requests
// of their pods (the scheduler's view, the default), the usage the metrics
// API measured, or a Prometheus query's rating of each node. Placement
// always goes by requests: the scheduler places by them.
type Meter int

const (
	ByRequests Meter = iota
	ByUsage
	ByScore
)

func MeterFor(m *policy.MetricsUtilization) Meter {
	switch {
	case m.Kubernetes():
		return ByUsage
	case m.PrometheusQuery() != "":
		return ByScore
	}
	return ByRequests
}

func (m Meter) String() string {
	switch m {
	case ByUsage:
		return "metrics.k8s.io usage"
	case ByScore:
		return "the Prometheus query"
	}
	return "requests"
}

// Util is the node's utilization of a resource in percent, as the meter
// sees it, with the moves planned so far.
func (m Meter) Util(n *cluster.Node, r corev1.ResourceName) float64 {
	switch m {
	case ByUsage:
		return n.UsedPercent(r)
	case ByScore:
		return n.ScorePercent()
	}
	return n.StayingUtilization(r)
}

// Used is the node's load of a resource in its units, as the meter sees it.
func (m Meter) Used(n *cluster.Node, r corev1.ResourceName) int64 {
	if m == ByUsage {
		return n.Used(r)
	}
	return n.StayingRequested(r)
}

// Pod is what a pod's replacement adds to its node, as the meter sees it.
func (m Meter) Pod(p *cluster.Pod, r corev1.ResourceName) int64 {
	if m == ByUsage {
		return p.UsageEstimate(r)
	}
	return p.SpecRequests.Get(r)
}

// Unmeasured says why the node's samples cannot classify it (missing or
// stale), or "" when they can or the meter needs none.
func (m Meter) Unmeasured(s *cluster.Snapshot, n *cluster.Node) string {
	if m == ByRequests {
		return ""
	}
	return s.UsageProblem(n, m == ByScore)
}

// Measurable reports whether the meter has anything to go by. Metrics that
// could not be read leave the snapshot without samples: a strategy then
// does nothing rather than classify every node as idle.
func (m Meter) Measurable(in *framework.Cycle, strategy string) bool {
	if m == ByRequests {
		return true
	}
	have := in.Snapshot.HasUsage()
	if m == ByScore {
		have = in.Snapshot.HasScores()
	}
	if have {
		return true
	}
	why := in.Snapshot.MetricsError()
	if why == "" {
		why = "no node has a sample"
	}
	msg := fmt.Sprintf("nodes are classified by %s, which could not be read (%s): nothing is balanced this cycle", m, why)
	klog.ErrorS(nil, strategy+": "+msg)
	in.Note(strategy, "", msg)
	return false
}

// SkipUnmeasured leaves out, with a note, each node whose samples cannot
// classify it: it is neither a source nor a target by usage.
func (m Meter) SkipUnmeasured(in *framework.Cycle, strategy string, n *cluster.Node) bool {
	why := m.Unmeasured(in.Snapshot, n)
	if why == "" {
		return false
	}
	klog.V(2).InfoS(strategy+": node left out, its usage is unknown", "node", n.Name, "reason", why)
	in.Note(strategy, n.Name, "neither a source nor a target: "+why)
	return true
}

// Measured returns the nodes whose samples can classify them: by usage,
// only those may take pods.
func Measured(m Meter, s *cluster.Snapshot, nodes []*cluster.Node) []*cluster.Node {
	if m == ByRequests {
		return nodes
	}
	out := make([]*cluster.Node, 0, len(nodes))
	for _, n := range nodes {
		if m.Unmeasured(s, n) == "" {
			out = append(out, n)
		}
	}
	return out
}
