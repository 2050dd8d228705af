package planner

import (
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
)

// metricsSources lists the sources of usage the policy's strategies read.
func (pl *Planner) metricsSources() []string {
	var out []string
	for _, n := range pl.Policy.Global().Strategies.List() {
		m, ok := n.Args.(interface {
			Metrics() *policy.MetricsUtilization
		})
		if !ok {
			continue
		}
		src := ""
		switch mu := m.Metrics(); {
		case mu.Kubernetes():
			src = policy.MetricsSourceKubernetes
		case mu.PrometheusQuery() != "":
			src = policy.MetricsSourcePrometheus
		}
		if src != "" && !slices.Contains(out, src) {
			out = append(out, src)
		}
	}
	slices.Sort(out)
	return out
}

// usageSummary says how much of the plan's view of usage was measured; nil
// when no strategy reads usage.
func (pl *Planner) usageSummary(snap *cluster.Snapshot) *UsageSummary {
	sources := pl.metricsSources()
	if len(sources) == 0 {
		return nil
	}
	u := &UsageSummary{Sources: sources, At: snap.UsageAt(), Error: snap.MetricsError()}
	for _, n := range snap.Nodes() {
		if !pl.Policy.SelectsNode(n.Labels) || (n.Usage == nil && n.Score == nil) {
			continue
		}
		u.Nodes++
		if n.Usage == nil {
			continue // a query rates nodes, not pods
		}
		for _, p := range n.Pods() {
			if p.Usage == nil && !p.IsTerminating() {
				u.PodsByRequests++
			}
		}
	}
	return u
}

// usagePercents is the node's measured usage in percent of allocatable,
// nil without a sample.
func usagePercents(n *cluster.Node) map[string]float64 {
	var m map[string]float64
	if n.Usage != nil {
		m = map[string]float64{}
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			m[string(r)] = round1(n.UsedPercent(r))
		}
	}
	if n.Score != nil {
		if m == nil {
			m = map[string]float64{}
		}
		m["query"] = round1(n.ScorePercent())
	}
	return m
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }
