package noderesources

import (
	"fmt"
	"math"

	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// maxCustomScore is the highest score a RequestedToCapacityRatio shape point
// may give; it is scaled to framework.MaxNodeScore.
const maxCustomScore = 10

// fitScore is NodeResourcesFit's Score: how full each node would be with the
// pod, by the profile's strategy, over the strategy's resources. CPU and
// memory count kube-scheduler's non-zero requests (100m and 200Mi for a
// container that requests none), so that best-effort pods still spread.
type fitScore struct {
	resources []scoredResource
	perNode   func(requested, allocatable int64) int64
	// rounded: RequestedToCapacityRatio averages with rounding and leaves
	// out resources that score 0; the others truncate.
	rounded bool
}

func newFitScore(st *configv1.ScoringStrategy) (fitScore, error) {
	f := fitScore{resources: newScoredResources(st.Resources)}
	switch st.Type {
	case configv1.LeastAllocated:
		f.perNode = leastAllocated
	case configv1.MostAllocated:
		f.perNode = mostAllocated
	case configv1.RequestedToCapacityRatio:
		f.perNode = requestedToCapacityRatio(st.RequestedToCapacityRatio.Shape)
		f.rounded = true
	default:
		return fitScore{}, fmt.Errorf("NodeResourcesFit.args.scoringStrategy.type: %q is not supported", st.Type)
	}
	return f, nil
}

func leastAllocated(requested, allocatable int64) int64 {
	if requested > allocatable {
		return 0
	}
	return (allocatable - requested) * framework.MaxNodeScore / allocatable
}

func mostAllocated(requested, allocatable int64) int64 {
	return min(requested, allocatable) * framework.MaxNodeScore / allocatable
}

// requestedToCapacityRatio scores utilization along a broken line through
// the shape's points (scores scaled from 0-10 to 0-100); utilization above
// capacity counts as 100%.
func requestedToCapacityRatio(shape []configv1.UtilizationShapePoint) func(int64, int64) int64 {
	return func(requested, allocatable int64) int64 {
		util := int64(100)
		if requested <= allocatable {
			util = requested * 100 / allocatable
		}
		for i, pt := range shape {
			if util <= int64(pt.Utilization) {
				if i == 0 {
					return int64(pt.Score) * (framework.MaxNodeScore / maxCustomScore)
				}
				prev := shape[i-1]
				s0, s1 := int64(prev.Score)*(framework.MaxNodeScore/maxCustomScore), int64(pt.Score)*(framework.MaxNodeScore/maxCustomScore)
				return s0 + (s1-s0)*(util-int64(prev.Utilization))/int64(pt.Utilization-prev.Utilization)
			}
		}
		return int64(shape[len(shape)-1].Score) * (framework.MaxNodeScore / maxCustomScore)
	}
}

func (f fitScore) score(c *framework.Cycle, feasible []int32, out []int64) bool {
	resources, podReq := requestsFor(c.Pod(), f.resources, false)
	for k, i := range feasible {
		n := c.Nodes()[i]
		var sum, weights int64
		for r := range resources {
			allocatable, used := nodeAmounts(n, &resources[r], false)
			if allocatable == 0 {
				continue
			}
			s := f.perNode(used+podReq[r], allocatable)
			if f.rounded && s <= 0 {
				continue
			}
			sum += s * resources[r].weight
			weights += resources[r].weight
		}
		switch {
		case weights == 0:
		case f.rounded:
			out[k] = int64(math.Round(float64(sum) / float64(weights)))
		default:
			out[k] = sum / weights
		}
	}
	return true
}
