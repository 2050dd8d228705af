package scheduler

import (
	"fmt"
	"math"
	"strings"

	corev1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// maxCustomScore is the highest score a RequestedToCapacityRatio shape point
// may give; it is scaled to maxNodeScore.
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

// resourceKind says where a resource's amounts are kept, decided once so
// that the per-node loops switch on a small integer, not on a name.
type resourceKind uint8

const (
	kindCPU resourceKind = iota
	kindMemory
	kindEphemeral
	kindPods
	kindOther
)

type scoredResource struct {
	name   corev1.ResourceName
	kind   resourceKind
	weight int64
	// scalar resources count only when the pod asks for them.
	scalar bool
}

func newScoredResources(specs []configv1.ResourceSpec) []scoredResource {
	out := make([]scoredResource, len(specs))
	for i, spec := range specs {
		name := corev1.ResourceName(spec.Name)
		kind := kindOther
		switch name {
		case corev1.ResourceCPU:
			kind = kindCPU
		case corev1.ResourceMemory:
			kind = kindMemory
		case corev1.ResourceEphemeralStorage:
			kind = kindEphemeral
		case corev1.ResourcePods:
			kind = kindPods
		}
		out[i] = scoredResource{name: name, kind: kind, weight: spec.Weight, scalar: isScalarResource(name)}
	}
	return out
}

func newFitScore(st *configv1.ScoringStrategy) (scorePlugin, error) {
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
		return nil, fmt.Errorf("NodeResourcesFit.args.scoringStrategy.type: %q is not supported", st.Type)
	}
	return f, nil
}

func (fitScore) name() string { return NodeResourcesFit }

func leastAllocated(requested, allocatable int64) int64 {
	if requested > allocatable {
		return 0
	}
	return (allocatable - requested) * maxNodeScore / allocatable
}

func mostAllocated(requested, allocatable int64) int64 {
	return min(requested, allocatable) * maxNodeScore / allocatable
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
					return int64(pt.Score) * (maxNodeScore / maxCustomScore)
				}
				prev := shape[i-1]
				s0, s1 := int64(prev.Score)*(maxNodeScore/maxCustomScore), int64(pt.Score)*(maxNodeScore/maxCustomScore)
				return s0 + (s1-s0)*(util-int64(prev.Utilization))/int64(pt.Utilization-prev.Utilization)
			}
		}
		return int64(shape[len(shape)-1].Score) * (maxNodeScore / maxCustomScore)
	}
}

// requestsFor returns the pod's request for each resource and drops the
// scalar resources it does not ask for, which kube-scheduler leaves out of
// the score.
func requestsFor(p *cluster.Pod, resources []scoredResource, actual bool) ([]scoredResource, []int64) {
	used := make([]scoredResource, 0, len(resources))
	reqs := make([]int64, 0, len(resources))
	nonZero := p.NonZeroRequests
	if !actual {
		// Found by the differential test against kube-scheduler: its
		// NodeResourcesFit score ignores pod-level requests.
		nonZero = p.ContainerNonZeroRequests()
	}
	for _, r := range resources {
		req := scoringRequest(p, &nonZero, r, actual)
		if req == 0 && r.scalar {
			continue
		}
		used = append(used, r)
		reqs = append(reqs, req)
	}
	return used, reqs
}

func (f fitScore) score(c *cycle, feasible []int32, out []int64) bool {
	resources, podReq := requestsFor(c.pod, f.resources, false)
	for k, i := range feasible {
		n := c.nodes[i]
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

// scoringRequest is what a score plugin counts the pod for: its effective
// request, or for CPU and memory (unless actual is set) nonZero, which has
// kube-scheduler's non-zero defaults.
func scoringRequest(p *cluster.Pod, nonZero *cluster.Resources, r scoredResource, actual bool) int64 {
	switch r.kind {
	case kindCPU:
		if actual {
			return p.Requests.MilliCPU
		}
		return nonZero.MilliCPU
	case kindMemory:
		if actual {
			return p.Requests.Memory
		}
		return nonZero.Memory
	case kindEphemeral:
		return p.Requests.EphemeralStorage
	case kindPods:
		return 0
	}
	return p.Requests.Scalar[r.name]
}

// nodeAmounts returns what a node offers of a resource and what its pods
// already take, as a score plugin counts them. A resource the node does not
// list offers 0 and is left out of the score.
func nodeAmounts(n *cluster.Node, r *scoredResource, actual bool) (allocatable, used int64) {
	switch r.kind {
	case kindCPU:
		if actual {
			return n.Allocatable.MilliCPU, n.Requested.MilliCPU
		}
		return n.Allocatable.MilliCPU, n.NonZeroRequested.MilliCPU
	case kindMemory:
		if actual {
			return n.Allocatable.Memory, n.Requested.Memory
		}
		return n.Allocatable.Memory, n.NonZeroRequested.Memory
	case kindEphemeral:
		return n.Allocatable.EphemeralStorage, n.Requested.EphemeralStorage
	case kindPods:
		return 0, 0
	}
	a, ok := n.Allocatable.Scalar[r.name]
	if !ok {
		return 0, 0
	}
	return a, n.Requested.Scalar[r.name]
}

// isScalarResource reports whether kube-scheduler treats a resource as a
// scalar one (extended, hugepages, prefixed native, attachable volumes):
// such a resource counts in a score only when the pod asks for it.
func isScalarResource(name corev1.ResourceName) bool {
	s := string(name)
	return isExtendedResource(name) || strings.HasPrefix(s, corev1.ResourceHugePagesPrefix) ||
		strings.Contains(s, corev1.ResourceDefaultNamespacePrefix) || strings.HasPrefix(s, corev1.ResourceAttachableVolumesPrefix)
}

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

func newBalancedAllocation(rs []configv1.ResourceSpec) balancedAllocation {
	return balancedAllocation{resources: newScoredResources(rs)}
}

func (balancedAllocation) name() string { return NodeResourcesBalancedAllocation }

func (b balancedAllocation) score(c *cycle, feasible []int32, out []int64) bool {
	resources, podReq := requestsFor(c.pod, b.resources, true)
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
		n := c.nodes[i]
		with, without = with[:0], without[:0]
		for r := range resources {
			allocatable, used := nodeAmounts(n, &resources[r], true)
			if allocatable == 0 {
				continue
			}
			with = append(with, min(float64(used+podReq[r])/float64(allocatable), 1))
			without = append(without, min(float64(used)/float64(allocatable), 1))
		}
		out[k] = maxNodeScore/2 + (maxNodeScore/2+evenness(with)-evenness(without))/2
	}
	return true
}

// scoreTwo is score for the usual two resources (CPU and memory), where
// the standard deviation is half the difference, without building slices.
func (b balancedAllocation) scoreTwo(c *cycle, feasible []int32, out []int64, resources []scoredResource, podReq []int64) {
	r0, r1 := &resources[0], &resources[1]
	for k, i := range feasible {
		n := c.nodes[i]
		a0, u0 := nodeAmounts(n, r0, true)
		a1, u1 := nodeAmounts(n, r1, true)
		var with, without int64
		switch {
		case a0 != 0 && a1 != 0:
			with = evennessOfTwo(min(float64(u0+podReq[0])/float64(a0), 1), min(float64(u1+podReq[1])/float64(a1), 1))
			without = evennessOfTwo(min(float64(u0)/float64(a0), 1), min(float64(u1)/float64(a1), 1))
		default:
			// One fraction or none: no deviation either way.
			with, without = maxNodeScore, maxNodeScore
		}
		out[k] = maxNodeScore/2 + (maxNodeScore/2+with-without)/2
	}
}

func evennessOfTwo(a, b float64) int64 {
	return int64((1 - math.Abs((a-b)/2)) * maxNodeScore)
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
	return int64((1 - std) * maxNodeScore)
}
