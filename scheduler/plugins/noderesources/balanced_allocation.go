package noderesources

import (
	"fmt"
	"math"

	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// BalancedAllocationName is NodeResourcesBalancedAllocation's name in a
// profile.
const BalancedAllocationName = "NodeResourcesBalancedAllocation"

// balancedAllocation prefers nodes whose resources would be used evenly:
// 100 times one minus the standard deviation of the used fractions, taken
// with and without the pod and blended as kube-scheduler 1.36 does:
// 50 + (50 + with - without) / 2, so that a pod that leaves a node's balance
// as it was scores 75, one that evens it out more and one that unbalances
// it less. It counts actual requests, and skips pods that request none of
// its resources.
type balancedAllocation struct {
	resources []scoredResource
}

var _ framework.ScorePlugin = (*balancedAllocation)(nil)

func NewBalancedAllocation(args any, _ framework.Handle) (framework.Plugin, error) {
	return &balancedAllocation{resources: newScoredResources(args.(*configv1.NodeResourcesBalancedAllocationArgs).Resources)}, nil
}

// BalancedAllocationArgs decodes, defaults and validates
// NodeResourcesBalancedAllocationArgs.
var BalancedAllocationArgs = framework.TypedArgs(BalancedAllocationName+"Args",
	func(a *configv1.NodeResourcesBalancedAllocationArgs) { a.Resources = defaultResources(a.Resources) },
	func(a *configv1.NodeResourcesBalancedAllocationArgs, _ string, bad func(string, string, ...any)) {
		seen := make(map[string]bool)
		for i, r := range a.Resources {
			if seen[r.Name] {
				bad(fmt.Sprintf("resources[%d].name", i), "%q is listed twice", r.Name)
			}
			seen[r.Name] = true
			if r.Weight != 1 {
				bad(fmt.Sprintf("resources[%d].weight", i), "%d is not 1", r.Weight)
			}
		}
	})

func (*balancedAllocation) Name() string { return BalancedAllocationName }

func (b *balancedAllocation) Score(c *framework.Cycle, feasible []int32, out []int64) bool {
	resources, podReq := requestsFor(c.Pod(), b.resources, true)
	requests := false
	for _, r := range podReq {
		requests = requests || r != 0
	}
	if !requests {
		return false
	}
	if len(resources) == 2 {
		b.scoreTwo(c, feasible, out, resources, podReq)
		return true
	}
	with := make([]float64, 0, len(resources))
	without := make([]float64, 0, len(resources))
	for k, i := range feasible {
		n := c.Nodes()[i]
		with, without = with[:0], without[:0]
		for r := range resources {
			allocatable, used := nodeAmounts(n, &resources[r], true)
			if allocatable == 0 {
				continue
			}
			with = append(with, min(float64(used+podReq[r])/float64(allocatable), 1))
			without = append(without, min(float64(used)/float64(allocatable), 1))
		}
		out[k] = framework.MaxNodeScore/2 + (framework.MaxNodeScore/2+evenness(with)-evenness(without))/2
	}
	return true
}

// scoreTwo is Score for the usual two resources (CPU and memory), where
// the standard deviation is half the difference, without building slices.
func (b *balancedAllocation) scoreTwo(c *framework.Cycle, feasible []int32, out []int64, resources []scoredResource, podReq []int64) {
	r0, r1 := &resources[0], &resources[1]
	for k, i := range feasible {
		n := c.Nodes()[i]
		a0, u0 := nodeAmounts(n, r0, true)
		a1, u1 := nodeAmounts(n, r1, true)
		var with, without int64
		switch {
		case a0 != 0 && a1 != 0:
			with = evennessOfTwo(min(float64(u0+podReq[0])/float64(a0), 1), min(float64(u1+podReq[1])/float64(a1), 1))
			without = evennessOfTwo(min(float64(u0)/float64(a0), 1), min(float64(u1)/float64(a1), 1))
		default:
			// One fraction or none: no deviation either way.
			with, without = framework.MaxNodeScore, framework.MaxNodeScore
		}
		out[k] = framework.MaxNodeScore/2 + (framework.MaxNodeScore/2+with-without)/2
	}
}

func evennessOfTwo(a, b float64) int64 {
	return int64((1 - math.Abs((a-b)/2)) * framework.MaxNodeScore)
}

// evenness is 100 times one minus the standard deviation of fractions.
func evenness(fractions []float64) int64 {
	var std float64
	switch len(fractions) {
	case 0, 1:
	case 2:
		std = math.Abs((fractions[0] - fractions[1]) / 2)
	default:
		var mean float64
		for _, f := range fractions {
			mean += f
		}
		mean /= float64(len(fractions))
		var sum float64
		for _, f := range fractions {
			sum += (f - mean) * (f - mean)
		}
		std = math.Sqrt(sum / float64(len(fractions)))
	}
	return int64((1 - std) * framework.MaxNodeScore)
}
