package strategies

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
)

// meter is what a utilization strategy classifies nodes by: the requests
// of their pods (the scheduler's view, the default), the usage the metrics
// API measured, or a Prometheus query's rating of each node. Placement
// always goes by requests: the scheduler places by them.
type meter int

const (
	byRequests meter = iota
	byUsage
	byScore
)

func meterFor(m *policy.MetricsUtilization) meter {
	switch {
	case m.Kubernetes():
		return byUsage
	case m.PrometheusQuery() != "":
		return byScore
	}
	return byRequests
}

func (m meter) String() string {
	switch m {
	case byUsage:
		return "metrics.k8s.io usage"
	case byScore:
		return "the Prometheus query"
	}
	return "requests"
}

// util is the node's utilization of a resource in percent, as the meter
// sees it, with the moves planned so far.
func (m meter) util(n *cluster.Node, r corev1.ResourceName) float64 {
	switch m {
	case byUsage:
		return n.UsedPercent(r)
	case byScore:
		return n.ScorePercent()
	}
	return n.StayingUtilization(r)
}

// used is the node's load of a resource in its units, as the meter sees it.
func (m meter) used(n *cluster.Node, r corev1.ResourceName) int64 {
	if m == byUsage {
		return n.Used(r)
	}
	return n.StayingRequested(r)
}

// pod is what a pod's replacement adds to its node, as the meter sees it.
func (m meter) pod(p *cluster.Pod, r corev1.ResourceName) int64 {
	if m == byUsage {
		return p.UsageEstimate(r)
	}
	return p.SpecRequests.Get(r)
}

// unmeasured says why the node's samples cannot classify it (missing or
// stale), or "" when they can or the meter needs none.
func (m meter) unmeasured(s *cluster.Snapshot, n *cluster.Node) string {
	if m == byRequests {
		return ""
	}
	return s.UsageProblem(n, m == byScore)
}

// measurable reports whether the meter has anything to go by. Metrics that
// could not be read leave the snapshot without samples: a strategy then
// does nothing rather than classify every node as idle.
func (m meter) measurable(in *Input, strategy string) bool {
	if m == byRequests {
		return true
	}
	have := in.Snapshot.HasUsage()
	if m == byScore {
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

// skipUnmeasured leaves out, with a note, each node whose samples cannot
// classify it: it is neither a source nor a target by usage.
func (m meter) skipUnmeasured(in *Input, strategy string, n *cluster.Node) bool {
	why := m.unmeasured(in.Snapshot, n)
	if why == "" {
		return false
	}
	klog.V(2).InfoS(strategy+": node left out, its usage is unknown", "node", n.Name, "reason", why)
	in.Note(strategy, n.Name, "neither a source nor a target: "+why)
	return true
}

// measured returns the nodes whose samples can classify them: by usage,
// only those may take pods.
func measured(m meter, s *cluster.Snapshot, nodes []*cluster.Node) []*cluster.Node {
	if m == byRequests {
		return nodes
	}
	out := make([]*cluster.Node, 0, len(nodes))
	for _, n := range nodes {
		if m.unmeasured(s, n) == "" {
			out = append(out, n)
		}
	}
	return out
}
