// Package nodeaffinity is kube-scheduler's NodeAffinity plugin: the pod's
// node selector, required and preferred node affinity, and the profile's
// addedAffinity.
package nodeaffinity

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// Name is the plugin's name in a profile.
const Name = "NodeAffinity"

// kube-scheduler's NodeAffinity reasons.
const (
	ErrReasonPod              = "node(s) didn't match Pod's node affinity/selector"
	ErrReasonEnforced         = "node(s) didn't match scheduler-enforced node affinity"
	ErrReasonAffinityConflict = "pod affinity terms conflict"
)

var (
	reasonNodeAffinity     = []string{ErrReasonPod}
	reasonEnforcedAffinity = []string{ErrReasonEnforced}
)

// nodeAffinity keeps a pod on the nodes its spec.nodeSelector and required
// node affinity select, and on those the profile's addedAffinity selects;
// it prefers nodes that match more of the pod's preferred node affinity
// terms (and the profile's added ones), by weight.
type nodeAffinity struct {
	args *configv1.NodeAffinityArgs
	key  framework.StateKey
}

// familyState is what the plugin keeps for a snapshot family: the nodes
// the profile's addedAffinity selects, and each set of preferred terms'
// scores per node.
type familyState struct {
	added           framework.Lazy[[]bool]
	preferredScores framework.Memo[string, []int64]
}

var (
	_ framework.StaticFilterPlugin = (*nodeAffinity)(nil)
	_ framework.ScorePlugin        = (*nodeAffinity)(nil)
)

func New(args any, h framework.Handle) (framework.Plugin, error) {
	return &nodeAffinity{args: args.(*configv1.NodeAffinityArgs), key: h.StateKey()}, nil
}

// nodeAffinityArgs decodes and validates NodeAffinityArgs.
var Args = framework.TypedArgs("NodeAffinityArgs", nil, func(a *configv1.NodeAffinityArgs, _ string, bad func(string, string, ...any)) {
	added := a.AddedAffinity
	if added == nil {
		return
	}
	if ns := added.RequiredDuringSchedulingIgnoredDuringExecution; ns != nil {
		if _, err := nodeaffinity.NewNodeSelector(ns); err != nil {
			bad("addedAffinity.requiredDuringSchedulingIgnoredDuringExecution", "%v", err)
		}
	}
	if terms := added.PreferredDuringSchedulingIgnoredDuringExecution; len(terms) > 0 {
		if _, err := nodeaffinity.NewPreferredSchedulingTerms(terms); err != nil {
			bad("addedAffinity.preferredDuringSchedulingIgnoredDuringExecution", "%v", err)
		}
	}
})

func (*nodeAffinity) Name() string { return Name }

func (p *nodeAffinity) PreFilter(c *framework.Cycle) framework.PreFilterResult {
	added := p.addedSelection(c)
	selection, _ := c.NodeAffinitySelection()
	if added == nil && selection == nil {
		return framework.PreFilterResult{Skip: true}
	}
	only, conflict := nodeNamesOfAffinity(c.Pod().Spec.Affinity)
	if conflict {
		return framework.PreFilterResult{Reject: ErrReasonAffinityConflict}
	}
	return framework.PreFilterResult{Only: only}
}

func (p *nodeAffinity) Filter(c *framework.Cycle, i int) []string {
	if added := p.addedSelection(c); added != nil && !added[i] {
		return reasonEnforcedAffinity
	}
	if sel, _ := c.NodeAffinitySelection(); sel != nil && !sel[i] {
		return reasonNodeAffinity
	}
	return nil
}

func (p *nodeAffinity) AppendStaticChecks(c *framework.Cycle, checks []framework.NodeCheck) []framework.NodeCheck {
	if added := p.addedSelection(c); added != nil {
		checks = append(checks, framework.NodeCheck{Bits: added, Pass: true, Reason: reasonEnforcedAffinity, Key: addedAffinityKey})
	}
	if sel, key := c.NodeAffinitySelection(); sel != nil {
		checks = append(checks, framework.NodeCheck{Bits: sel, Pass: true, Reason: reasonNodeAffinity, Key: "nodeAffinity=" + key})
	}
	return checks
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

// addedAffinityKey is the profile's addedAffinity among the static checks'
// keys. A pod's key is never this: after the NUL comes a label with its
// "=", or JSON.
const addedAffinityKey = "\x00addedAffinity"

// addedSelection returns, per node, whether it matches the profile's
// addedAffinity required selector, or nil when there is none.
func (p *nodeAffinity) addedSelection(c *framework.Cycle) []bool {
	added := p.args.AddedAffinity
	if added == nil || added.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	return *framework.FamilyState[familyState](c, p.key).added.Get(func() *[]bool {
		sel, err := nodeaffinity.NewNodeSelector(added.RequiredDuringSchedulingIgnoredDuringExecution)
		match := make([]bool, len(c.Nodes()))
		if err != nil {
			return &match
		}
		for i, n := range c.Nodes() {
			match[i] = sel.Match(n.Node)
		}
		return &match
	})
}

// Score is the weight of the preferred terms a node matches, normalized so
// that the best node scores 100.
func (p *nodeAffinity) Score(c *framework.Cycle, feasible []int32, out []int64) bool {
	var terms []corev1.PreferredSchedulingTerm
	if a := c.Pod().Spec.Affinity; a != nil && a.NodeAffinity != nil {
		terms = a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	}
	var added []corev1.PreferredSchedulingTerm
	if a := p.args.AddedAffinity; a != nil {
		added = a.PreferredDuringSchedulingIgnoredDuringExecution
	}
	if terms == nil && len(added) == 0 {
		return false
	}
	all := append(append([]corev1.PreferredSchedulingTerm(nil), added...), terms...)
	key, _ := json.Marshal(all)
	perNode := framework.FamilyState[familyState](c, p.key).preferredScores.Get(string(key), func() []int64 {
		scores := make([]int64, len(c.Nodes()))
		preferred, err := nodeaffinity.NewPreferredSchedulingTerms(all)
		if err != nil {
			return scores
		}
		for i, n := range c.Nodes() {
			scores[i] = preferred.Score(n.Node)
		}
		return scores
	})
	for k, i := range feasible {
		out[k] = perNode[i]
	}
	framework.DefaultNormalizeScore(out, false)
	return true
}
