// Package preemption is DefaultPreemption's PostFilter: for a pod that
// fits on no node, the node it would be nominated to and the pods of lower
// priority deleted there, or why there is none, in kube-scheduler's words.
//
// It asks the engine only what package engine exports for it, as
// kube-scheduler's preemption Evaluator asks its framework.Handle: which
// nodes a failed decision could make room on (Engine.Resolvable), whether
// the pod fits on a node of a scratch snapshot from which victims were
// removed (Engine.FilterWithNominated), the pods nominated to each node
// (engine.NominatedAgainst), the profile and its extenders. The planner
// never preempts: nothing under planner or strategies imports it.
package preemption

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/defaultpreemption"
)

// Decision is what DefaultPreemption's PostFilter decides for a pod that
// fits on no node: the node it would be nominated to and the pods deleted
// to make room there, or why there is none. It is a decision, not an
// action: Decide changes nothing.
type Decision struct {
	// Node is the node the pod would be nominated to
	// (status.nominatedNodeName); empty when preemption cannot help.
	Node string `json:"node,omitempty"`
	// Victims are the pods on Node that would be deleted, most important
	// first (higher priority, then earlier start): those DefaultPreemption
	// chose, or those the last extender with a preemptVerb named. A victim
	// already being deleted is among them; kube-scheduler sends it no
	// second deletion.
	Victims []*cluster.Pod `json:"-"`
	// PDBViolations counts the victims whose deletion a
	// PodDisruptionBudget does not allow.
	PDBViolations int `json:"pdbViolations,omitempty"`
	// NotEligible says why the pod may not preempt at all, in
	// kube-scheduler's words ("not eligible due to preemptionPolicy=Never.");
	// empty when it may.
	NotEligible string `json:"notEligible,omitempty"`
	// Reason is what DefaultPreemption said when it found no node, in
	// kube-scheduler's words, without its "preemption: " prefix:
	// NotEligible, or "0/3 nodes are available: 3 No preemption victims
	// found for incoming pod.", or Error; empty when it found one or did
	// not run.
	Reason string `json:"reason,omitempty"`
	// Error is the error of an extender's preemptVerb that ended
	// preemption: kube-scheduler's PostFilter fails with it instead of
	// finding no node, and the PostFilter plugins before DefaultPreemption
	// are left out of Message. Empty otherwise.
	Error string `json:"error,omitempty"`
	// LoseNomination are the pods of lower priority nominated to Node:
	// kube-scheduler clears their status.nominatedNodeName when it
	// nominates the pod there.
	LoseNomination []*cluster.Pod `json:"-"`
	// Message is kube-scheduler's FailedScheduling message for the pod:
	// the filters' "0/N nodes are available: …." followed, when no node
	// was found, by PostFilter's " preemption: …".
	Message string `json:"message"`
}

// Decide runs the PostFilter plugins of e's profile for pod, which failed
// to fit in snap with the result failed (from e.Schedule): it returns the
// node the pod would be nominated to and the victims there, or why
// preemption cannot help. snap is not changed; Decide works on a scratch
// copy of it, so it must not run while snap is edited.
func Decide(e *engine.Engine, snap *cluster.Snapshot, pod *cluster.Pod, failed engine.Result) Decision {
	if failed.Error != "" {
		// An extender failed the decision: kube-scheduler reports the
		// error and runs no PostFilter.
		return Decision{Message: failed.Message}
	}
	var out Decision
	var said []string
	for _, name := range e.Profile().PointPlugins(framework.PointPostFilter) {
		switch name {
		case dynamicResources:
			said = append(said, draNothingToDeallocate)
		case defaultpreemption.Name:
			var fits bool
			out, fits = defaultPreemption(e, snap, pod)
			if fits {
				return Decision{}
			}
			if out.Node != "" {
				out.Message = failed.Message
				return out
			}
			out.Reason = out.Message
			if out.Error != "" {
				// An error ends the PostFilter plugins at once, and the
				// message carries it alone.
				out.Message = failed.Message + " preemption: " + out.Error
				return out
			}
			said = append(said, "preemption: "+out.Reason)
		}
	}
	out.Message = failed.Message
	if len(said) > 0 {
		out.Message += " " + strings.Join(said, ", ")
	}
	return out
}

// kube-scheduler's words for what preemption found.
const (
	notEligibleNever       = "not eligible due to preemptionPolicy=Never."
	notEligibleTerminating = "not eligible due to a terminating pod on the nominated node."
	reasonNotHelpful       = "Preemption is not helpful for scheduling"
	reasonNoVictims        = "No preemption victims found for incoming pod"
	reasonNoVictimNeeded   = "expected at least one victim pod on node"
)

// dynamicResources is kube-scheduler's DRA plugin, whose PostFilter runs
// before DefaultPreemption's; for a pod it cannot help it says
// draNothingToDeallocate.
const (
	dynamicResources       = "DynamicResources"
	draNothingToDeallocate = "no new claims to deallocate"
)

// defaultPreemption is DefaultPreemption's PostFilter: eligibility, the
// nodes where removing pods can help, the victims on each, what the
// extenders with a preemptVerb keep of them, and the choice among them. It
// returns the candidate, or in Message what the plugin says when there is
// none (after "preemption: "), or in Error an extender's error; fits when
// the pod fits after all and nothing needs preempting.
func defaultPreemption(e *engine.Engine, snap *cluster.Snapshot, pod *cluster.Pod) (out Decision, fits bool) {
	args := argsOf(e)
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy == corev1.PreemptNever {
		out.NotEligible = notEligibleNever
		out.Message = out.NotEligible
		return out, false
	}

	numNodes := len(snap.Nodes())
	potential, fits, err := e.Resolvable(snap, pod)
	switch {
	case err != nil:
		// An extender's error fails the decision before kube-scheduler's
		// PostFilter runs: nothing is preempted.
		out.Message = err.Error()
		return out, false
	case fits:
		return Decision{}, true
	}
	if why := notEligibleOnNominated(snap, pod, potential); why != "" {
		out.NotEligible = why
		out.Message = why
		return out, false
	}
	if len(potential) == 0 {
		out.Message = availableMessage(numNodes, nil, numNodes)
		return out, false
	}

	// kube-scheduler dry-runs the potential nodes from a random offset
	// and stops once it has numCandidates candidates, one of them at
	// least without PDB violations; the engine's search start stands for
	// the offset, so that the same call gives the same answer. Below
	// minCandidateNodesAbsolute potential nodes, every one is tried, so
	// the offset changes nothing.
	numCandidates := args.numCandidates(len(potential))
	offset := 0
	if numCandidates < len(potential) {
		offset = engine.SearchStart(pod, len(potential))
	}
	scratch := snap.Scratch()
	budgets := newBudgets(snap)
	nominated := engine.NominatedAgainst(snap, pod)
	var clean, violating []candidate
	reasons := make(map[string]int)
	tried := 0
	for j := range potential {
		i := int(potential[(offset+j)%len(potential)])
		cand, st := selectVictims(e, scratch, pod, i, budgets, nominated[int32(i)])
		if st != nil {
			tried++
			for _, r := range st.Reasons {
				reasons[r]++
			}
			continue
		}
		if cand.pdbViolations == 0 {
			if len(clean) < numCandidates {
				clean = append(clean, cand)
			}
		} else if len(violating) < numCandidates {
			violating = append(violating, cand)
		}
		if len(clean) > 0 && len(clean)+len(violating) >= numCandidates {
			break
		}
	}
	candidates := append(clean, violating...)
	if len(candidates) == 0 {
		out.Message = availableMessage(numNodes, reasons, numNodes-tried)
		return out, false
	}
	candidates, err = processExtenders(e, snap, pod, candidates)
	if err != nil {
		out.Error = err.Error()
		out.Message = out.Error
		return out, false
	}
	if len(candidates) == 0 {
		out.Message = reasonNoCandidate
		return out, false
	}
	best := pickOneNodeForPreemption(candidates, snap.Now)
	out.Node = snap.Nodes()[best.node].Name
	// The pick reads an extender's victims in its order, as
	// kube-scheduler does; they are reported most important first.
	out.Victims = slices.SortedStableFunc(slices.Values(best.victims), func(a, b *cluster.Pod) int {
		return moreImportantOrder(a, b, snap.Now)
	})
	out.PDBViolations = best.pdbViolations
	for _, p := range snap.Nominated() {
		if p.Priority < pod.Priority && !engine.SamePod(p, pod) && snap.NominatedTo(p) == snap.Node(out.Node) {
			out.LoseNomination = append(out.LoseNomination, p)
		}
	}
	return out, false
}

// notEligibleOnNominated is the second half of kube-scheduler's
// PodEligibleToPreemptOthers: a pod that already preempted on its
// nominated node waits while a victim there is still terminating, unless
// the node now fails it for a reason no preemption resolves (it is not
// among potential).
func notEligibleOnNominated(snap *cluster.Snapshot, pod *cluster.Pod, potential []int32) string {
	n := snap.Node(pod.Status.NominatedNodeName)
	if n == nil {
		return ""
	}
	if _, ok := slices.BinarySearch(potential, int32(n.Index())); !ok {
		return ""
	}
	for _, p := range n.Pods() {
		if p.Priority < pod.Priority && terminatingByPreemption(p) {
			return notEligibleTerminating
		}
	}
	return ""
}

// terminatingByPreemption reports whether a scheduler's preemption is
// deleting the pod: it is terminating with the DisruptionTarget condition
// a scheduler sets.
func terminatingByPreemption(p *cluster.Pod) bool {
	if !p.IsTerminating() {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.DisruptionTarget {
			return c.Status == corev1.ConditionTrue && c.Reason == corev1.PodReasonPreemptionByScheduler
		}
	}
	return false
}

// availableMessage is kube-scheduler's FitError text for the preemption
// dry run: each reason with the number of nodes that gave it, sorted as
// strings, and absent nodes (those preemption could not help) counted as
// "Preemption is not helpful for scheduling".
func availableMessage(numNodes int, reasons map[string]int, absent int) string {
	counts := make(map[string]int, len(reasons)+1)
	for r, n := range reasons {
		counts[r] += n
	}
	if absent > 0 {
		counts[reasonNotHelpful] += absent
	}
	parts := make([]string, 0, len(counts))
	for r, n := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(parts)
	return fmt.Sprintf("0/%d nodes are available: %s.", numNodes, strings.Join(parts, ", "))
}
