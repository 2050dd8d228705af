package report

import (
	"math"

	"github.com/kube-rebalancer/rebalancer/planner"
)

// balanceResources are the resources whose spread over the nodes the
// metrics show: those every node report has.
var balanceResources = []string{"cpu", "memory", "pods"}

// Spread is how evenly a resource is requested over nodes, as ratios of
// allocatable.
type Spread struct {
	Nodes            int
	Min, Max, StdDev float64
}

// Balance is the spread of each of cpu, memory and pods over the nodes of
// a plan's node report for which counted is true, before and after the
// plan. A node that offers none of a resource its pods request (the report
// shows -1) is left out of that resource's figures, having no ratio to
// count. A resource no node counts for is absent.
func Balance(nodes []planner.NodeUsage, counted func(node string) bool) (before, after map[string]Spread) {
	before, after = map[string]Spread{}, map[string]Spread{}
	for _, res := range balanceResources {
		var b, a []float64
		for _, n := range nodes {
			if n.Unschedulable || !counted(n.Name) {
				continue
			}
			if v, ok := n.Before[res]; ok && v >= 0 {
				b = append(b, v/100)
			}
			if v, ok := n.After[res]; ok && v >= 0 {
				a = append(a, v/100)
			}
		}
		if len(b) > 0 {
			before[res] = spreadOf(b)
		}
		if len(a) > 0 {
			after[res] = spreadOf(a)
		}
	}
	return before, after
}

// spreadOf takes the population standard deviation: the nodes counted are
// all there are, not a sample of them.
func spreadOf(vs []float64) Spread {
	s := Spread{Nodes: len(vs), Min: vs[0], Max: vs[0]}
	sum := 0.0
	for _, v := range vs {
		s.Min, s.Max = min(s.Min, v), max(s.Max, v)
		sum += v
	}
	mean := sum / float64(len(vs))
	sq := 0.0
	for _, v := range vs {
		sq += (v - mean) * (v - mean)
	}
	s.StdDev = math.Sqrt(sq / float64(len(vs)))
	return s
}

// ObserveBalance replaces the spread of utilization with that of the
// plan's node report: counted says which nodes are Ready, the others'
// utilization says little of balance (the report's table still lists
// them), and so do cordoned nodes'.
func (m *Metrics) ObserveBalance(nodes []planner.NodeUsage, counted func(node string) bool) {
	before, after := Balance(nodes, counted)
	m.utilization.Reset()
	for when, spreads := range map[string]map[string]Spread{"before": before, "after": after} {
		for res, s := range spreads {
			m.utilization.WithLabelValues(res, "min", when).Set(s.Min)
			m.utilization.WithLabelValues(res, "max", when).Set(s.Max)
			m.utilization.WithLabelValues(res, "stddev", when).Set(s.StdDev)
		}
	}
}
