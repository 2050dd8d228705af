package scheduler

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// NodeAffinity is the plugin's name in a profile.
const NodeAffinity = "NodeAffinity"

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
}

var (
	_ StaticFilterPlugin = (*nodeAffinity)(nil)
	_ ScorePlugin        = (*nodeAffinity)(nil)
)

func newNodeAffinity(args any, _ Handle) (Plugin, error) {
	return &nodeAffinity{args: args.(*configv1.NodeAffinityArgs)}, nil
}

// nodeAffinityArgs decodes and validates NodeAffinityArgs.
var nodeAffinityArgs = typedArgs("NodeAffinityArgs", nil, func(a *configv1.NodeAffinityArgs, _ string, bad func(string, string, ...any)) {
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

func (*nodeAffinity) Name() string { return NodeAffinity }

func (p *nodeAffinity) PreFilter(c *Cycle) PreFilterResult {
	added := p.addedSelection(c)
	selection := c.requiredAffinitySelection()
	if added == nil && selection == nil {
		return PreFilterResult{Skip: true}
	}
	only, conflict := nodeNamesOfAffinity(c.pod.Spec.Affinity)
	if conflict {
		return PreFilterResult{Reject: ErrReasonAffinityConflict}
	}
	return PreFilterResult{Only: only}
}

func (p *nodeAffinity) Filter(c *Cycle, i int) []string {
	if added := p.addedSelection(c); added != nil && !added[i] {
		return reasonEnforcedAffinity
	}
	if sel := c.requiredAffinitySelection(); sel != nil && !sel[i] {
		return reasonNodeAffinity
	}
	return nil
}

func (p *nodeAffinity) AppendStaticChecks(c *Cycle, checks []NodeCheck) []NodeCheck {
	if added := p.addedSelection(c); added != nil {
		checks = append(checks, NodeCheck{Bits: added, Pass: true, Reason: reasonEnforcedAffinity, Key: addedAffinityKey})
	}
	if sel := c.requiredAffinitySelection(); sel != nil {
		checks = append(checks, NodeCheck{Bits: sel, Pass: true, Reason: reasonNodeAffinity, Key: "nodeAffinity=" + c.affinitySelectionKey})
	}
	return checks
}

// requiredAffinitySelection returns, per node, whether the node matches the
// pod's spec.nodeSelector and required node affinity, or nil when the pod
// has neither. Pods of a workload share the same spec, so the answer is
// kept per spec for the snapshot family.
func (c *Cycle) requiredAffinitySelection() []bool {
	if c.affinitySelectionDone {
		return c.affinitySelection
	}
	c.affinitySelectionDone = true
	spec := c.pod.Spec
	var required *corev1.NodeSelector
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil {
		required = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	if len(spec.NodeSelector) == 0 && required == nil {
		return nil
	}
	// Its key is kept per pod: the planner asks about the same pods again
	// and again, and writing the affinity as JSON costs more than the rest
	// of the lookup.
	key := memo(c.t, c.t.affinityKeys, c.pod, func() string {
		js, _ := json.Marshal(required)
		return cluster.LabelKey("", spec.NodeSelector) + string(js)
	})
	c.affinitySelectionKey = key
	c.affinitySelection = memo(c.t, c.t.nodeSelections, key, func() []bool {
		req := nodeaffinity.GetRequiredNodeAffinity(c.pod.Pod)
		match := make([]bool, len(c.t.nodes))
		for i, n := range c.t.nodes {
			match[i], _ = req.Match(n)
		}
		return match
	})
	return c.affinitySelection
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

// addedAffinityKey is the profile's addedAffinity in nodeSelections and
// among the static checks' keys. A pod's key is never this: after the NUL
// comes a label with its "=", or JSON.
const addedAffinityKey = "\x00addedAffinity"

// addedSelection returns, per node, whether it matches the profile's
// addedAffinity required selector, or nil when there is none.
func (p *nodeAffinity) addedSelection(c *Cycle) []bool {
	added := p.args.AddedAffinity
	if added == nil || added.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	return memo(c.t, c.t.nodeSelections, addedAffinityKey, func() []bool {
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

// Score is the weight of the preferred terms a node matches, normalized so
// that the best node scores 100.
func (p *nodeAffinity) Score(c *Cycle, feasible []int32, out []int64) bool {
	var terms []corev1.PreferredSchedulingTerm
	if a := c.pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
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
