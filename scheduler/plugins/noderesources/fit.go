// Package noderesources is kube-scheduler's NodeResourcesFit (the fit
// filter and its scoring strategies) and NodeResourcesBalancedAllocation
// plugins.
package noderesources

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// FitName is NodeResourcesFit's name in a profile.
const FitName = "NodeResourcesFit"

// kube-scheduler's NodeResourcesFit reasons; a missing extended or
// hugepages resource r is "Insufficient " + r.
const (
	ErrReasonTooManyPods          = "Too many pods"
	ErrReasonInsufficientCPU      = "Insufficient cpu"
	ErrReasonInsufficientMemory   = "Insufficient memory"
	ErrReasonInsufficientStorage  = "Insufficient ephemeral-storage"
	errReasonInsufficientResource = "Insufficient "
)

// nodeResourcesFit keeps a pod off nodes that lack room for its effective
// requests (cluster.Pod.SpecRequests: containers, init containers and
// sidecars, pod-level resources and overhead; a pod being placed asks for
// its spec, as kube-scheduler's PreFilter reads it) or for one more pod, and
// scores nodes by the profile's scoring strategy (fitScore).
type nodeResourcesFit struct {
	key           framework.StateKey
	ignored       map[corev1.ResourceName]bool
	ignoredGroups map[string]bool
	score         fitScore
}

var (
	_ framework.FilterPlugin = (*nodeResourcesFit)(nil)
	_ framework.ScorePlugin  = (*nodeResourcesFit)(nil)
)

func NewFit(a any, h framework.Handle) (framework.Plugin, error) {
	args := a.(*configv1.NodeResourcesFitArgs)
	f := &nodeResourcesFit{key: h.StateKey(), ignored: make(map[corev1.ResourceName]bool), ignoredGroups: make(map[string]bool)}
	for _, r := range args.IgnoredResources {
		f.ignored[corev1.ResourceName(r)] = true
	}
	for _, g := range args.IgnoredResourceGroups {
		f.ignoredGroups[g] = true
	}
	var err error
	f.score, err = newFitScore(args.ScoringStrategy)
	return f, err
}

// FitArgs decodes, defaults and validates
// NodeResourcesFitArgs.
var FitArgs = framework.TypedArgs(FitName+"Args", setFitDefaults, validateFitArgs)

func setFitDefaults(fit *configv1.NodeResourcesFitArgs) {
	if fit.ScoringStrategy == nil {
		fit.ScoringStrategy = &configv1.ScoringStrategy{Type: configv1.LeastAllocated}
	}
	if fit.ScoringStrategy.Type == "" {
		fit.ScoringStrategy.Type = configv1.LeastAllocated
	}
	fit.ScoringStrategy.Resources = defaultResources(fit.ScoringStrategy.Resources)
}

func validateFitArgs(fit *configv1.NodeResourcesFitArgs, _ string, bad func(string, string, ...any)) {
	for i, r := range fit.IgnoredResources {
		if msgs := validation.IsQualifiedName(r); len(msgs) > 0 {
			bad(fmt.Sprintf("ignoredResources[%d]", i), "%q is not a resource name: %s", r, strings.Join(msgs, "; "))
		}
	}
	for i, g := range fit.IgnoredResourceGroups {
		if strings.Contains(g, "/") || len(validation.IsQualifiedName(g)) > 0 {
			bad(fmt.Sprintf("ignoredResourceGroups[%d]", i), "%q is not a resource group name", g)
		}
	}
	st := fit.ScoringStrategy
	switch st.Type {
	case configv1.LeastAllocated, configv1.MostAllocated:
		if st.RequestedToCapacityRatio != nil {
			bad("scoringStrategy.requestedToCapacityRatio", "must be empty when type is %s", st.Type)
		}
	case configv1.RequestedToCapacityRatio:
		if st.RequestedToCapacityRatio == nil {
			bad("scoringStrategy.requestedToCapacityRatio", "required when type is RequestedToCapacityRatio")
		} else {
			checkShape(st.RequestedToCapacityRatio.Shape, "scoringStrategy.requestedToCapacityRatio.shape", bad)
		}
	default:
		bad("scoringStrategy.type", "%q is not one of LeastAllocated, MostAllocated, RequestedToCapacityRatio", st.Type)
	}
	for i, r := range st.Resources {
		if r.Weight <= 0 || r.Weight > 100 {
			bad(fmt.Sprintf("scoringStrategy.resources[%d].weight", i), "%d is not in (0, 100]", r.Weight)
		}
	}
}

// checkShape validates a RequestedToCapacityRatio shape: utilization
// increasing within [0, 100], scores within [0, 10].
func checkShape(shape []configv1.UtilizationShapePoint, field string, bad func(string, string, ...any)) {
	if len(shape) == 0 {
		bad(field, "at least one point is required")
		return
	}
	for i, pt := range shape {
		if i > 0 && shape[i-1].Utilization >= pt.Utilization {
			bad(fmt.Sprintf("%s[%d].utilization", field, i), "%d is not above the previous point's %d", pt.Utilization, shape[i-1].Utilization)
		}
		if pt.Utilization < 0 || pt.Utilization > 100 {
			bad(fmt.Sprintf("%s[%d].utilization", field, i), "%d is not in [0, 100]", pt.Utilization)
		}
		if pt.Score < 0 || pt.Score > maxCustomScore {
			bad(fmt.Sprintf("%s[%d].score", field, i), "%d is not in [0, %d]", pt.Score, maxCustomScore)
		}
	}
}

// fitState is the request NodeResourcesFit checks, with the extended and
// hugepages resources in name order so that reasons come out in a fixed
// order.
type fitState struct {
	scalars []corev1.ResourceName
	// reasons caches the reason lists by combination of what is
	// insufficient: the bits of pods, cpu, memory and ephemeral-storage
	// (short…), and above them one bit per scalar, in the order of
	// scalars. A pod that fits nowhere gives one of a few lists on
	// thousands of nodes.
	reasons map[uint64][]string
}

const (
	shortPods = 1 << iota
	shortCPU
	shortMemory
	shortEphemeral
	// shortScalars is the bit of the first scalar; a pod with more
	// extended resources than bits left has no cached lists.
	shortScalars     = 4
	maxCachedScalars = 64 - shortScalars
)

// Reset keeps the scalars' buffer.
func (s *fitState) Reset() {
	s.scalars = s.scalars[:0]
	clear(s.reasons)
}

// reasonsFor returns the reasons of the combination short: the pods, cpu,
// memory and ephemeral-storage reasons, then each scalar's, as
// kube-scheduler lists them.
func (s *fitState) reasonsFor(short uint64) []string {
	if r, ok := s.reasons[short]; ok {
		return r
	}
	var reasons []string
	if short&shortPods != 0 {
		reasons = append(reasons, ErrReasonTooManyPods)
	}
	if short&shortCPU != 0 {
		reasons = append(reasons, ErrReasonInsufficientCPU)
	}
	if short&shortMemory != 0 {
		reasons = append(reasons, ErrReasonInsufficientMemory)
	}
	if short&shortEphemeral != 0 {
		reasons = append(reasons, ErrReasonInsufficientStorage)
	}
	for k, name := range s.scalars {
		if short&(1<<(shortScalars+k)) != 0 {
			reasons = append(reasons, errReasonInsufficientResource+string(name))
		}
	}
	if s.reasons == nil {
		s.reasons = make(map[uint64][]string)
	}
	s.reasons[short] = reasons
	return reasons
}

func (*nodeResourcesFit) Name() string { return FitName }

func (f *nodeResourcesFit) PreFilter(c *framework.Cycle) framework.PreFilterResult {
	st := framework.State[fitState](c, f.key)
	st.scalars = st.scalars[:0]
	for name, v := range c.Pod().SpecRequests.Scalar {
		if v == 0 || (IsExtendedResource(name) && (f.ignored[name] || f.ignoredGroups[strings.SplitN(string(name), "/", 2)[0]])) {
			continue
		}
		st.scalars = append(st.scalars, name)
	}
	slices.Sort(st.scalars)
	clear(st.reasons)
	return framework.PreFilterResult{}
}

// Score is fitScore's.
func (f *nodeResourcesFit) Score(c *framework.Cycle, feasible []int32, out []int64) bool {
	return f.score.score(c, feasible, out)
}

func (f *nodeResourcesFit) Filter(c *framework.Cycle, i int) []string {
	st := framework.State[fitState](c, f.key)
	n := c.Nodes()[i]
	req := &c.Pod().SpecRequests
	var short uint64
	if n.Requested.Pods+1 > n.Allocatable.Pods {
		short |= shortPods
	}
	if req.MilliCPU > 0 && req.MilliCPU > n.Allocatable.MilliCPU-n.Requested.MilliCPU {
		short |= shortCPU
	}
	if req.Memory > 0 && req.Memory > n.Allocatable.Memory-n.Requested.Memory {
		short |= shortMemory
	}
	if req.EphemeralStorage > 0 && req.EphemeralStorage > n.Allocatable.EphemeralStorage-n.Requested.EphemeralStorage {
		short |= shortEphemeral
	}
	var uncached []string
	for k, name := range st.scalars {
		if req.Scalar[name] > n.Allocatable.Scalar[name]-n.Requested.Scalar[name] {
			if k < maxCachedScalars {
				short |= 1 << (shortScalars + k)
			} else {
				uncached = append(uncached, errReasonInsufficientResource+string(name))
			}
		}
	}
	if short == 0 && uncached == nil {
		return nil
	}
	reasons := st.reasonsFor(short)
	if uncached != nil {
		return append(slices.Clip(reasons), uncached...)
	}
	return reasons
}

// IsExtendedResource reports whether a resource is an extended resource
// (outside the kubernetes.io namespace), the only kind NodeResourcesFit's
// ignoredResources and ignoredResourceGroups apply to.
func IsExtendedResource(name corev1.ResourceName) bool {
	s := string(name)
	if !strings.Contains(s, "/") || strings.Contains(s, corev1.ResourceDefaultNamespacePrefix) || strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+s)) == 0
}

// Unresolvable: a request larger than the node's whole allocatable amount
// fits no matter which pods leave; too many pods, or too little left, can
// be resolved.
func (f *nodeResourcesFit) Unresolvable(c *framework.Cycle, i int, _ []string) bool {
	n := c.Nodes()[i]
	req := &c.Pod().SpecRequests
	if req.MilliCPU > n.Allocatable.MilliCPU || req.Memory > n.Allocatable.Memory || req.EphemeralStorage > n.Allocatable.EphemeralStorage {
		return true
	}
	for _, name := range framework.State[fitState](c, f.key).scalars {
		if req.Scalar[name] > n.Allocatable.Scalar[name] {
			return true
		}
	}
	return false
}
