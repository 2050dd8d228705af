package nodeutilization

import (
	"fmt"
	"math"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// Relieves reports whether the pod takes any of the resources from its
// node, as the meter counts them; any pod may relieve a node a query rates.
func (b Bands) Relieves(p *cluster.Pod, resources []corev1.ResourceName) bool {
	if b.Meter == ByScore {
		return true
	}
	for _, r := range resources {
		if b.Meter.Pod(p, r) > 0 {
			return true
		}
	}
	return false
}

// Name is how a resource is named in a reason: usage is marked, so that a
// reader does not take it for requests.
func (b Bands) Name(r corev1.ResourceName) string {
	switch b.Meter {
	case ByUsage:
		if cluster.IsMeasured(r) {
			return string(r) + " usage"
		}
	case ByScore:
		return "query"
	}
	return string(r)
}

// Bands are the utilization limits, in percent, that classify nodes: below
// low is under-utilized, above high is over-utilized.
type Bands struct {
	Meter     Meter
	Resources []corev1.ResourceName
	Low, High map[corev1.ResourceName]float64
}

// NewBands turns thresholds into absolute limits. With deviation thresholds
// the limits are the mean utilization of the nodes minus and plus the
// thresholds, so that "balanced" means close to the average.
func NewBands(m Meter, low, high policy.ResourceThresholds, deviation bool, nodes []*cluster.Node) Bands {
	b := Bands{Meter: m, Low: map[corev1.ResourceName]float64{}, High: map[corev1.ResourceName]float64{}}
	for _, name := range low.Names() {
		r := corev1.ResourceName(name)
		b.Resources = append(b.Resources, r)
		b.Low[r], b.High[r] = low[name], high[name]
		if deviation {
			mean := meanUtilization(m, nodes, r)
			b.Low[r] = math.Max(0, mean-low[name])
			b.High[r] = math.Min(100, mean+high[name])
		}
	}
	return b
}

func meanUtilization(m Meter, nodes []*cluster.Node, r corev1.ResourceName) float64 {
	var sum float64
	var n int
	for _, node := range nodes {
		if !node.Ready() || (m == ByUsage && node.Usage == nil) || (m == ByScore && node.Score == nil) {
			continue
		}
		if u := m.Util(node, r); !math.IsInf(u, 0) {
			sum += u
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// IsUnder: every listed resource below its threshold, and the node takes
// pods (a cordoned node is never a destination).
func (b Bands) IsUnder(n *cluster.Node) bool {
	return !n.Unschedulable() && b.IsBelow(n)
}

// IsBelow: every listed resource below its threshold.
func (b Bands) IsBelow(n *cluster.Node) bool {
	for _, r := range b.Resources {
		if b.Meter.Util(n, r) >= b.Low[r] {
			return false
		}
	}
	return true
}

func (b Bands) IsOver(n *cluster.Node) bool { return len(b.OverResources(n)) > 0 }

// OverResources lists the resources above their target on the node.
func (b Bands) OverResources(n *cluster.Node) []corev1.ResourceName {
	var over []corev1.ResourceName
	if b.Meter == ByScore && n.Left() > 0 {
		// A query rates the node, not its pods: how much one pod's leaving
		// relieves it is unknown until it is measured again, so one pod
		// leaves each node a cycle, as in the descheduler.
		return nil
	}
	for _, r := range b.Resources {
		if b.Meter.Util(n, r) > b.High[r] {
			over = append(over, r)
		}
	}
	return over
}

// Load orders over-utilized nodes: the sum of their utilization above
// target.
func (b Bands) Load(n *cluster.Node) float64 {
	var sum float64
	for _, r := range b.OverResources(n) {
		sum += math.Min(b.Meter.Util(n, r), 1000) - b.High[r]
	}
	return sum
}

// HasHeadroom reports whether the under-utilized nodes, together, can still
// take some of every listed resource below their targets.
func (b Bands) HasHeadroom(in *framework.Cycle, under []int32) bool {
	nodes := in.Snapshot.Nodes()
	if b.Meter == ByScore {
		for _, i := range under {
			if nodes[i].Arrived() == 0 {
				return true
			}
		}
		return false
	}
	for _, r := range b.Resources {
		var room float64
		high := b.High[r]
		for _, i := range under {
			n := nodes[i]
			room += high*float64(n.Allocatable.Get(r))/100 - float64(b.Meter.Used(n, r))
		}
		if room <= 0 {
			return false
		}
	}
	return true
}

func (b Bands) DescribeOver(n *cluster.Node, over []corev1.ResourceName) string {
	parts := make([]string, len(over))
	for i, r := range over {
		parts[i] = fmt.Sprintf("%s %s > %s", b.Name(r), Pct(b.Meter.Util(n, r)), Pct(b.High[r]))
	}
	return strings.Join(parts, ", ")
}

func (b Bands) LowString() string  { return b.format(b.Low) }
func (b Bands) HighString() string { return b.format(b.High) }

func (b Bands) format(m map[corev1.ResourceName]float64) string {
	parts := make([]string, len(b.Resources))
	for i, r := range b.Resources {
		parts[i] = fmt.Sprintf("%s=%s", b.Name(r), Pct(m[r]))
	}
	return strings.Join(parts, ", ")
}

// Pct formats a percentage with at most one decimal.
func Pct(v float64) string {
	if math.IsInf(v, 1) {
		return "∞%"
	}
	return fmt.Sprintf("%s%%", trimFloat(math.Round(v*10)/10))
}

func trimFloat(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", v), "0"), ".")
}

// HasRoom reports whether the node has room for the cpu and memory the
// pod's replacement asks for, and for one more pod, counting what
// terminating pods still hold, as the scheduler does.
func HasRoom(n *cluster.Node, p *cluster.Pod) bool {
	return n.Requested.Pods+1 <= n.Allocatable.Pods &&
		n.Requested.MilliCPU+p.SpecRequests.MilliCPU <= n.Allocatable.MilliCPU &&
		n.Requested.Memory+p.SpecRequests.Memory <= n.Allocatable.Memory
}

// MeanLoad is a node's mean utilization over the listed resources.
func (b Bands) MeanLoad(n *cluster.Node) float64 {
	var sum float64
	var k int
	for _, r := range b.Resources {
		if u := b.Meter.Util(n, r); !math.IsInf(u, 0) {
			sum += u
			k++
		}
	}
	if k == 0 {
		return 0
	}
	return sum / float64(k)
}

// CompareLoad orders nodes by their mean load over the listed resources,
// the least used first when ascending (the most used first otherwise), by
// name among equals either way.
func CompareLoad(b Bands, x, y *cluster.Node, ascending bool) int {
	lx, ly := b.MeanLoad(x), b.MeanLoad(y)
	if !ascending {
		lx, ly = ly, lx
	}
	switch {
	case lx < ly:
		return -1
	case lx > ly:
		return 1
	}
	return strings.Compare(x.Name, y.Name)
}

func (b Bands) DescribeUnder(n *cluster.Node) string {
	parts := make([]string, len(b.Resources))
	for i, r := range b.Resources {
		parts[i] = fmt.Sprintf("%s %s < %s", b.Name(r), Pct(b.Meter.Util(n, r)), Pct(b.Low[r]))
	}
	return strings.Join(parts, ", ")
}

// Points formats percentage points with at most one decimal.
func Points(v float64) string { return trimFloat(math.Round(v*10) / 10) }

// Drop returns by how many percentage points the pod's leaving lowers the
// node's utilization of r, as the meter counts it.
func (b Bands) Drop(n *cluster.Node, p *cluster.Pod, r corev1.ResourceName) float64 {
	return cluster.Percent(b.Meter.Pod(p, r), n.Allocatable.Get(r))
}
