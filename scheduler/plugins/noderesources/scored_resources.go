package noderesources

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

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

// requestsFor returns the pod's request for each resource and drops the
// scalar resources it does not ask for, which kube-scheduler leaves out of
// the score.
func requestsFor(p *cluster.Pod, resources []scoredResource, actual bool) ([]scoredResource, []int64) {
	used := make([]scoredResource, 0, len(resources))
	reqs := make([]int64, 0, len(resources))
	nonZero := p.SpecNonZeroRequests
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

// scoringRequest is what a score plugin counts the pod for: its effective
// request, or for CPU and memory (unless actual is set) nonZero, which has
// kube-scheduler's non-zero defaults.
func scoringRequest(p *cluster.Pod, nonZero *cluster.Resources, r scoredResource, actual bool) int64 {
	switch r.kind {
	case kindCPU:
		if actual {
			return p.SpecRequests.MilliCPU
		}
		return nonZero.MilliCPU
	case kindMemory:
		if actual {
			return p.SpecRequests.Memory
		}
		return nonZero.Memory
	case kindEphemeral:
		return p.SpecRequests.EphemeralStorage
	case kindPods:
		return 0
	}
	return p.SpecRequests.Scalar[r.name]
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
	return IsExtendedResource(name) || strings.HasPrefix(s, corev1.ResourceHugePagesPrefix) ||
		strings.Contains(s, corev1.ResourceDefaultNamespacePrefix) || strings.HasPrefix(s, corev1.ResourceAttachableVolumesPrefix)
}

// defaultResources gives CPU and memory with weight 1 when no resource is
// listed, and weight 1 to a listed resource without one.
func defaultResources(rs []configv1.ResourceSpec) []configv1.ResourceSpec {
	if len(rs) == 0 {
		return []configv1.ResourceSpec{{Name: string(corev1.ResourceCPU), Weight: 1}, {Name: string(corev1.ResourceMemory), Weight: 1}}
	}
	out := make([]configv1.ResourceSpec, len(rs))
	for i, r := range rs {
		if r.Weight == 0 {
			r.Weight = 1
		}
		out[i] = r
	}
	return out
}
