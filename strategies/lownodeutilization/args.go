package lownodeutilization

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/strategies/nodeutilization"
)

// Args configure LowNodeUtilization, which moves pods from over-utilized
// nodes to under-utilized ones.
type Args struct {
	policy.Common `json:",inline"`

	// Thresholds: a node is under-utilized when every listed resource is
	// below its threshold, in percent of allocatable. With nodePools, these
	// apply to the nodes no pool selects, and may be left out to leave those
	// nodes alone.
	Thresholds policy.ResourceThresholds `json:"thresholds,omitempty"`
	// TargetThresholds: a node is over-utilized when any listed resource is
	// above its target; pods leave it until it is within target.
	TargetThresholds policy.ResourceThresholds `json:"targetThresholds,omitempty"`
	// UseDeviationThresholds makes both thresholds percentages below and
	// above the mean utilization of the nodes (of each pool), instead of
	// absolute ones.
	UseDeviationThresholds bool `json:"useDeviationThresholds,omitempty"`
	// NumberOfNodes: the strategy acts (in each pool) only when more than
	// this many nodes are under-utilized.
	NumberOfNodes int32 `json:"numberOfNodes,omitempty"`
	// NodePools balance groups of nodes each on its own, with their own
	// thresholds: pods move only between nodes of one pool.
	NodePools []Pool `json:"nodePools,omitempty"`
	// EvictableNamespaces narrows the namespaces whose pods move; the pods
	// of every namespace still count in the nodes' utilization.
	EvictableNamespaces *policy.Namespaces `json:"evictableNamespaces,omitempty"`
	// EvictionLimits bound this strategy's evictions in one run.
	EvictionLimits *EvictionLimits `json:"evictionLimits,omitempty"`
	// MetricsUtilization classifies nodes by what their pods use, read from
	// metrics-server or Prometheus, instead of what they request.
	MetricsUtilization *policy.MetricsUtilization `json:"metricsUtilization,omitempty"`
	// MinImprovement, in percentage points: a pod leaves an over-utilized
	// node only when its leaving lowers the node's utilization of a
	// resource above target by at least this much. 0 moves any pod that
	// relieves the node.
	MinImprovement float64 `json:"minImprovement,omitempty"`
}

// Metrics returns metricsUtilization, nil when nodes are classified by
// requests.
func (a *Args) Metrics() *policy.MetricsUtilization { return a.MetricsUtilization }

// EvictionLimits bound a strategy's evictions in one run, as the
// descheduler's evictionLimits do.
type EvictionLimits struct {
	// Node: at most this many pods leave each node.
	Node *int32 `json:"node,omitempty"`
}

// NodeLimit returns evictionLimits.node, or -1 when unset.
func (a *Args) NodeLimit() int {
	if a.EvictionLimits == nil || a.EvictionLimits.Node == nil {
		return -1
	}
	return int(*a.EvictionLimits.Node)
}

// Pool is a node pool with the thresholds that classify
// its nodes.
type Pool struct {
	nodeutilization.NodePool `json:",inline"`
	Thresholds               policy.ResourceThresholds `json:"thresholds,omitempty"`
	TargetThresholds         policy.ResourceThresholds `json:"targetThresholds,omitempty"`
}

// Pools returns the node pools in order, each as the NodePool of its entry.
func (a *Args) Pools() []*nodeutilization.NodePool {
	return nodeutilization.PoolsOf(a.NodePools, func(p *Pool) *nodeutilization.NodePool { return &p.NodePool })
}

// Default fills in unset arguments; LowNodeUtilization has none to fill.
func (a *Args) Default() {}

// NodeLevelFields names the arguments that classify nodes.
func (a *Args) NodeLevelFields() []string {
	return []string{"thresholds", "targetThresholds", "useDeviationThresholds", "numberOfNodes", "nodePools", "evictableNamespaces", "evictionLimits", "metricsUtilization", "minImprovement"}
}

// UtilizationThresholds returns the thresholds under which nodes are
// under-utilized, the top-level ones first, then each pool's.
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
	// With pools, the top-level pair is optional, but when half of it is
	// given the other half is still required.
	if len(a.NodePools) == 0 || len(a.Thresholds) > 0 || len(a.TargetThresholds) > 0 {
		errs = append(errs, policy.ValidateThresholdPair(a.Thresholds, a.TargetThresholds, !a.UseDeviationThresholds, path)...)
	}
	errs = append(errs, a.MetricsUtilization.Validate(path.Child("metricsUtilization"))...)
	errs = append(errs, policy.ValidateMetricThresholds(a.MetricsUtilization, a.Thresholds, path.Child("thresholds"))...)
	errs = append(errs, policy.ValidateMetricThresholds(a.MetricsUtilization, a.TargetThresholds, path.Child("targetThresholds"))...)
	if a.NumberOfNodes < 0 {
		errs = append(errs, field.Invalid(path.Child("numberOfNodes"), a.NumberOfNodes, "is negative"))
	}
	errs = append(errs, policy.ValidateNamespaces(a.EvictableNamespaces, path.Child("evictableNamespaces"))...)
	if l := a.EvictionLimits; l != nil && l.Node != nil && *l.Node < 0 {
		errs = append(errs, field.Invalid(path.Child("evictionLimits", "node"), *l.Node, "is negative"))
	}
	errs = append(errs, policy.ValidatePoints(a.MinImprovement, path.Child("minImprovement"))...)
	pools := a.Pools()
	for i, p := range a.NodePools {
		pp := path.Child("nodePools").Index(i)
		errs = append(errs, nodeutilization.ValidatePool(pools, i, pp)...)
		errs = append(errs, policy.ValidateThresholdPair(p.Thresholds, p.TargetThresholds, !a.UseDeviationThresholds, pp)...)
		errs = append(errs, policy.ValidateMetricThresholds(a.MetricsUtilization, p.Thresholds, pp.Child("thresholds"))...)
		errs = append(errs, policy.ValidateMetricThresholds(a.MetricsUtilization, p.TargetThresholds, pp.Child("targetThresholds"))...)
	}
	return errs
}
