package cluster

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// SpreadConstraint is one of a pod's topology spread constraints as
// kube-scheduler applies it: the selector with the pod's matchLabelKeys
// merged in, and the API's defaults made explicit. The scheduler engine and
// the strategies compile constraints with CompileSpreadConstraint only, so
// that both read the Kubernetes rules the same way.
type SpreadConstraint struct {
	TopologyKey       string
	MaxSkew           int32
	WhenUnsatisfiable corev1.UnsatisfiableConstraintAction
	// Selector selects the pods the constraint counts, in the pod's own
	// namespace.
	Selector labels.Selector
	// MinDomains is the constraint's minDomains, 1 when unset. The API
	// accepts it only with DoNotSchedule, and kube-scheduler reads it only
	// in its filter.
	MinDomains int32
	// HonorsNodeAffinity says whether only nodes matching the pod's
	// nodeSelector and required node affinity count (nodeAffinityPolicy,
	// Honor when unset); HonorsNodeTaints whether only nodes whose
	// NoSchedule and NoExecute taints the pod tolerates count
	// (nodeTaintsPolicy, Ignore when unset).
	HonorsNodeAffinity bool
	HonorsNodeTaints   bool
	// Domains numbers the values of TopologyKey over the nodes the caller
	// counts on; CompileSpreadConstraint leaves it nil, since the same
	// constraint is counted over many snapshots.
	Domains *TopologyDomains
}

// CompileSpreadConstraint compiles constraint tc of a pod with the given
// labels. It fails only when the label selector does not parse, which the
// API server rejects.
func CompileSpreadConstraint(tc *corev1.TopologySpreadConstraint, podLabels map[string]string) (SpreadConstraint, error) {
	sel, err := metav1.LabelSelectorAsSelector(tc.LabelSelector)
	if err != nil {
		return SpreadConstraint{}, err
	}
	c := SpreadConstraint{
		TopologyKey:        tc.TopologyKey,
		MaxSkew:            tc.MaxSkew,
		WhenUnsatisfiable:  tc.WhenUnsatisfiable,
		Selector:           withMatchLabels(sel, addMatchLabelKeyValues(labels.Set{}, tc, podLabels)),
		MinDomains:         1,
		HonorsNodeAffinity: tc.NodeAffinityPolicy == nil || *tc.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor,
		HonorsNodeTaints:   tc.NodeTaintsPolicy != nil && *tc.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor,
	}
	if tc.MinDomains != nil {
		c.MinDomains = *tc.MinDomains
	}
	return c, nil
}

// MatchLabelKeyValues returns the key=value pairs that tc's matchLabelKeys
// add to its selector for a pod with the given labels: one for each key
// the pod has a label for, nil when there are none. Two pods whose
// constraints are alike and whose values are equal select the same pods.
func MatchLabelKeyValues(tc *corev1.TopologySpreadConstraint, podLabels map[string]string) labels.Set {
	return addMatchLabelKeyValues(nil, tc, podLabels)
}

// addMatchLabelKeyValues adds to set, made when nil and needed, the pairs
// MatchLabelKeyValues returns. Compiling passes an empty set that stays on
// the stack: the merged selector does not keep it.
func addMatchLabelKeyValues(set labels.Set, tc *corev1.TopologySpreadConstraint, podLabels map[string]string) labels.Set {
	for _, k := range tc.MatchLabelKeys {
		if v, ok := podLabels[k]; ok {
			if set == nil {
				set = labels.Set{}
			}
			set[k] = v
		}
	}
	return set
}

// withMatchLabels adds set's pairs to the selector. The API server merges
// them into the selector of the pods it admits; merging again changes
// nothing, and covers pods written by hand. A selector that selects nothing
// stays as it is.
func withMatchLabels(sel labels.Selector, set labels.Set) labels.Selector {
	if len(set) == 0 {
		return sel
	}
	reqs, selectable := sel.Requirements()
	if !selectable {
		return sel
	}
	return labels.SelectorFromSet(set).Add(reqs...)
}

// IncludesNode applies the constraint's nodeAffinityPolicy and
// nodeTaintsPolicy to a node, given whether the node matches the pod's
// nodeSelector and required node affinity and whether the pod tolerates the
// node's NoSchedule and NoExecute taints. Only the pods on included nodes
// count, and only included nodes make domains.
func (c *SpreadConstraint) IncludesNode(matchesAffinity, toleratesTaints bool) bool {
	return (matchesAffinity || !c.HonorsNodeAffinity) && (toleratesTaints || !c.HonorsNodeTaints)
}

// BelowMinDomains reports whether fewer domains than minDomains hold an
// included node: the skew is then measured from 0, whatever the fewest
// matching pods in a domain.
func (c *SpreadConstraint) BelowMinDomains(domains int32) bool {
	return domains < c.MinDomains
}

// HasAllTopologyKeys reports whether node i has a label for the topology
// key of every constraint in cons, whose Domains must be set. kube-scheduler
// counts a node for a pod's constraints of one kind (DoNotSchedule, or
// ScheduleAnyway) only when it has all their keys: a node missing one is a
// domain of none of them.
func HasAllTopologyKeys(cons []SpreadConstraint, i int) bool {
	for k := range cons {
		if cons[k].Domains.Of[i] < 0 {
			return false
		}
	}
	return true
}
