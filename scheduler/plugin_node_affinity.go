package scheduler

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// kube-scheduler's NodeAffinity reasons.
var (
	reasonNodeAffinity      = []string{"node(s) didn't match Pod's node affinity/selector"}
	reasonEnforcedAffinity  = []string{"node(s) didn't match scheduler-enforced node affinity"}
	reasonAffinityConflicts = "pod affinity terms conflict"
)

// nodeAffinityFilter keeps a pod on the nodes its spec.nodeSelector and
// required node affinity select, and on those the profile's addedAffinity
// selects.
type nodeAffinityFilter struct{}

func (nodeAffinityFilter) name() string { return NodeAffinity }

func (nodeAffinityFilter) prepare(c *cycle) prepared {
	added := c.addedSelection()
	selection := c.requiredAffinitySelection()
	if added == nil && selection == nil {
		return prepared{skip: true}
	}
	only, conflict := nodeNamesOfAffinity(c.pod.Spec.Affinity)
	if conflict {
		return prepared{reject: reasonAffinityConflicts}
	}
	return prepared{only: only}
}

func (nodeAffinityFilter) filter(c *cycle, i int) []string {
	if added := c.addedSelection(); added != nil && !added[i] {
		return reasonEnforcedAffinity
	}
	if sel := c.requiredAffinitySelection(); sel != nil && !sel[i] {
		return reasonNodeAffinity
	}
	return nil
}

// nodeNamesOfAffinity returns the node names the pod's required node
// affinity is limited to when every term names nodes with a
// "metadata.name In" field requirement (as DaemonSet pods do), so that only
// those nodes are checked; conflict is true when the terms can match no name.
func nodeNamesOfAffinity(a *corev1.Affinity) (names map[string]bool, conflict bool) {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil, false
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) == 0 {
		return nil, false
	}
	union := make(map[string]bool)
	for _, t := range terms {
		var inTerm map[string]bool
		for _, r := range t.MatchFields {
			if r.Key != metav1.ObjectNameField || r.Operator != corev1.NodeSelectorOpIn {
				continue
			}
			values := make(map[string]bool, len(r.Values))
			for _, v := range r.Values {
				if inTerm == nil || inTerm[v] {
					values[v] = true
				}
			}
			inTerm = values
		}
		if inTerm == nil {
			return nil, false
		}
		for v := range inTerm {
			union[v] = true
		}
	}
	return union, len(union) == 0
}

// addedSelection returns, per node, whether it matches the profile's
// addedAffinity required selector, or nil when there is none.
func (c *cycle) addedSelection() []bool {
	added := c.e.profile.NodeAffinity.AddedAffinity
	if added == nil || added.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	return memo(c.t, c.t.nodeSelections, "\x00addedAffinity", func() []bool {
		sel, err := nodeaffinity.NewNodeSelector(added.RequiredDuringSchedulingIgnoredDuringExecution)
		match := make([]bool, len(c.t.nodes))
		if err != nil {
			return match
		}
		for i, n := range c.t.nodes {
			match[i] = sel.Match(n)
		}
		return match
	})
}

// nodeAffinityScore prefers nodes that match more of the pod's preferred
// node affinity terms (and the profile's added ones), by weight, normalized
// so that the best node scores 100.
type nodeAffinityScore struct{}

func (nodeAffinityScore) name() string { return NodeAffinity }

func (nodeAffinityScore) score(c *cycle, feasible []int32, out []int64) bool {
	var terms []corev1.PreferredSchedulingTerm
	if a := c.pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		terms = a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	}
	var added []corev1.PreferredSchedulingTerm
	if a := c.e.profile.NodeAffinity.AddedAffinity; a != nil {
		added = a.PreferredDuringSchedulingIgnoredDuringExecution
	}
	if terms == nil && len(added) == 0 {
		return false
	}
	all := append(append([]corev1.PreferredSchedulingTerm(nil), added...), terms...)
	key, _ := json.Marshal(all)
	perNode := memo(c.t, c.t.preferredScores, string(key), func() []int64 {
		scores := make([]int64, len(c.t.nodes))
		preferred, err := nodeaffinity.NewPreferredSchedulingTerms(all)
		if err != nil {
			return scores
		}
		for i, n := range c.t.nodes {
			scores[i] = preferred.Score(n)
		}
		return scores
	})
	for k, i := range feasible {
		out[k] = perNode[i]
	}
	normalizeToMax(out, false)
	return true
}
