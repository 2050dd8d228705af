package highnodeutilization

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/strategies/nodeutilization"
)

// Args configure HighNodeUtilization, which empties the least used nodes
// onto the others so that the cluster can shrink.
type Args struct {
	policy.Common `json:",inline"`

	// Thresholds: a node is under-utilized, and a candidate for emptying,
	// when every listed resource is below its threshold, in percent of
	// allocatable. With nodePools, these apply to the nodes no pool selects,
	// and may be left out to leave those nodes alone.
	Thresholds policy.ResourceThresholds `json:"thresholds,omitempty"`
	// TargetThresholds: the nodes that take the emptied nodes' pods stay
	// at or below these, in percent of allocatable, keeping headroom for
	// bursts and daemons; a node whose pods do not all fit under them
	// elsewhere is not emptied. Unset: targets fill up to what they can
	// hold. With nodePools, these apply to the nodes no pool selects.
	TargetThresholds policy.ResourceThresholds `json:"targetThresholds,omitempty"`
	// NumberOfNodes: the strategy acts (in each pool) only when more than
	// this many nodes are under-utilized.
	NumberOfNodes int32 `json:"numberOfNodes,omitempty"`
	// NodePools compact groups of nodes each on its own, with their own
	// thresholds: pods move only between nodes of one pool.
	NodePools []Pool `json:"nodePools,omitempty"`
	// EvictionModes: with OnlyThresholdingResources, only pods that request
	// one of the thresholds' resources leave; the others stay with the
	// node, as DaemonSet pods do.
	EvictionModes []string `json:"evictionModes,omitempty"`
	// EvictableNamespaces narrows the namespaces whose pods move; the pods
	// of every namespace still count in the nodes' utilization, and a node
	// with a pod that may not move is not emptied.
	EvictableNamespaces *policy.Namespaces `json:"evictableNamespaces,omitempty"`
	// MetricsUtilization classifies nodes by what their pods use, read from
	// metrics-server or Prometheus, instead of what they request (the
	// descheduler offers it for LowNodeUtilization only).
	MetricsUtilization *policy.MetricsUtilization `json:"metricsUtilization,omitempty"`
	// MinImprovement, in percentage points: an under-utilized node is
	// emptied only when every listed resource is at least this far below
	// its threshold. 0 empties any node below the thresholds.
	MinImprovement float64 `json:"minImprovement,omitempty"`
}

// Metrics returns metricsUtilization, nil when nodes are classified by
// requests.
func (a *Args) Metrics() *policy.MetricsUtilization { return a.MetricsUtilization }

// EvictionModeOnlyThresholdingResources moves only the pods that request a
// resource the thresholds name.
const EvictionModeOnlyThresholdingResources = "OnlyThresholdingResources"

// OnlyThresholdingResources reports whether the evictionModes include
// OnlyThresholdingResources.
func (a *Args) OnlyThresholdingResources() bool {
	return slices.Contains(a.EvictionModes, EvictionModeOnlyThresholdingResources)
}

// HasCeiling reports whether targetThresholds are set, at the top level or
// for a pool.
func (a *Args) HasCeiling() bool {
	if len(a.TargetThresholds) > 0 {
		return true
	}
	for _, p := range a.NodePools {
		if len(p.TargetThresholds) > 0 {
			return true
		}
	}
	return false
}

// Pool is a node pool with the thresholds under which
// its nodes are emptied.
type Pool struct {
	nodeutilization.NodePool `json:",inline"`
	Thresholds               policy.ResourceThresholds `json:"thresholds,omitempty"`
	TargetThresholds         policy.ResourceThresholds `json:"targetThresholds,omitempty"`
}

// Pools returns the node pools in order, each as the NodePool of its entry.
func (a *Args) Pools() []*nodeutilization.NodePool {
	return nodeutilization.PoolsOf(a.NodePools, func(p *Pool) *nodeutilization.NodePool { return &p.NodePool })
}

// Default fills in unset arguments; HighNodeUtilization has none to fill.
func (a *Args) Default() {}

// NodeLevelFields names the arguments that classify nodes.
func (a *Args) NodeLevelFields() []string {
	return []string{"thresholds", "targetThresholds", "numberOfNodes", "nodePools", "evictionModes", "evictableNamespaces", "metricsUtilization", "minImprovement"}
}

// ConflictsWith: LowNodeUtilization fills the least used nodes and
// HighNodeUtilization empties them, so each would undo the other's moves on
// the next run. An override cannot separate them by namespace either, since
// both classify nodes, which the pods of every namespace share.
func (a *Args) ConflictsWith() (strategy, why string) {
	return "LowNodeUtilization", "LowNodeUtilization moves pods onto the least used nodes, " +
		"HighNodeUtilization empties those nodes, and each would undo the other on the next run; keep one"
}

// UtilizationThresholds returns the thresholds under which nodes are
// emptied, the top-level ones first, then each pool's.
func (a *Args) UtilizationThresholds() []policy.ResourceThresholds {
	all := []policy.ResourceThresholds{a.Thresholds}
	for _, p := range a.NodePools {
		all = append(all, p.Thresholds)
	}
	return all
}

// Validate reports every invalid argument.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.Common.Validate(path)
	if len(a.Thresholds) == 0 && len(a.NodePools) == 0 {
		errs = append(errs, field.Required(path.Child("thresholds"), "list at least one resource, e.g. {cpu: 20, memory: 20, pods: 20}, or give nodePools"))
	}
	errs = append(errs, policy.ValidateThresholds(a.Thresholds, path.Child("thresholds"))...)
	errs = append(errs, a.MetricsUtilization.Validate(path.Child("metricsUtilization"))...)
	errs = append(errs, policy.ValidateMetricThresholds(a.MetricsUtilization, a.Thresholds, path.Child("thresholds"))...)
	errs = append(errs, validateCeiling(a.Thresholds, a.TargetThresholds, path)...)
	errs = append(errs, policy.ValidateMetricThresholds(a.MetricsUtilization, a.TargetThresholds, path.Child("targetThresholds"))...)
	errs = append(errs, policy.ValidatePoints(a.MinImprovement, path.Child("minImprovement"))...)
	if a.NumberOfNodes < 0 {
		errs = append(errs, field.Invalid(path.Child("numberOfNodes"), a.NumberOfNodes, "is negative"))
	}
	errs = append(errs, policy.ValidateChoices(a.EvictionModes, []string{EvictionModeOnlyThresholdingResources}, path.Child("evictionModes"))...)
	errs = append(errs, policy.ValidateNamespaces(a.EvictableNamespaces, path.Child("evictableNamespaces"))...)
	pools := a.Pools()
	for i, p := range a.NodePools {
		pp := path.Child("nodePools").Index(i)
		errs = append(errs, nodeutilization.ValidatePool(pools, i, pp)...)
		if len(p.Thresholds) == 0 {
			errs = append(errs, field.Required(pp.Child("thresholds"), "list at least one resource, e.g. {cpu: 20, memory: 20}"))
		}
		errs = append(errs, policy.ValidateThresholds(p.Thresholds, pp.Child("thresholds"))...)
		errs = append(errs, policy.ValidateMetricThresholds(a.MetricsUtilization, p.Thresholds, pp.Child("thresholds"))...)
		errs = append(errs, validateCeiling(p.Thresholds, p.TargetThresholds, pp)...)
		errs = append(errs, policy.ValidateMetricThresholds(a.MetricsUtilization, p.TargetThresholds, pp.Child("targetThresholds"))...)
	}
	return errs
}

// validateCeiling checks targetThresholds: each a percentage, and above
// the threshold of the same resource, or no node could both be emptied
// and take pods.
func validateCeiling(low, high policy.ResourceThresholds, path *field.Path) field.ErrorList {
	hp := path.Child("targetThresholds")
	errs := policy.ValidateThresholds(high, hp)
	for _, name := range high.Names() {
		if l, ok := low[name]; ok && high[name] <= l && high[name] >= 0 {
			errs = append(errs, field.Invalid(hp.Child(name), high[name], fmt.Sprintf("is not above thresholds.%s (%g)", name, l)))
		}
	}
	return errs
}
