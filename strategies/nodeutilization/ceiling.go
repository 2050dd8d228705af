package nodeutilization

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
)

// Limit is an upper bound on a node's utilization of a resource, in
// percent of its allocatable.
type Limit struct {
	Resource corev1.ResourceName
	Percent  float64
}

// LimitsOf returns the thresholds as limits, in resource name order; nil
// when there are none.
func LimitsOf(t policy.ResourceThresholds) []Limit {
	if len(t) == 0 {
		return nil
	}
	out := make([]Limit, 0, len(t))
	for _, name := range t.Names() {
		out = append(out, Limit{corev1.ResourceName(name), t[name]})
	}
	return out
}

// Exceeds reports whether the node, with the pod's replacement added, goes
// above one of the limits as the meter counts it. A query rates the node,
// not its pods: a node already above a limit takes no pod.
func Exceeds(m Meter, limits []Limit, n *cluster.Node, p *cluster.Pod) bool {
	for _, l := range limits {
		over := cluster.Percent(m.Used(n, l.Resource)+m.Pod(p, l.Resource), n.Allocatable.Get(l.Resource)) > l.Percent
		if m == ByScore {
			over = n.Score != nil && n.ScorePercent() > l.Percent
		}
		if over {
			return true
		}
	}
	return false
}
