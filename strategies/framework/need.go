package framework

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
)

// Need is a strategy's need to move k pods out of a group: the replicas of
// a workload beyond a node's share, the pods a domain holds past a spread
// constraint's maxSkew. The strategy proposes the group's pods through it,
// in its order of preference (the cheapest first: Cheaper), and may go on
// to further pods when one is refused, since another may fit where the
// first did not. Only the pods the group needed and did not get are
// skipped: when the strategy is done with the group, k less the pods that
// moved, each once, the first refused first. Refused pods beyond those
// were alternatives and are not news.
type Need struct {
	cycle    *Cycle
	strategy string
	// Pods is k. A strategy whose need is known only at the end (how many
	// pods bring a node back within its target) sets it before Done.
	Pods int
	// Moved counts the pods of the group that moved.
	Moved int
	// Refused lists the pods of the group that stayed, each once, in the
	// order they were refused.
	Refused []Refusal
}

// Refusal is a pod of the group that stayed, and why.
type Refusal struct {
	Pod     *cluster.Pod
	Outcome Outcome
	// Counted marks a pod the strategy did not propose and would drop by
	// the thousand on a large cluster: it is counted, not listed (see
	// Counter).
	Counted bool
}

// Need starts a group of which the strategy needs k pods to move.
func (c *Cycle) Need(strategy string, k int) *Need {
	return &Need{cycle: c, strategy: strategy, Pods: k}
}

// Move proposes a pod of the group.
func (w *Need) Move(c Candidate) Outcome {
	o := w.cycle.Propose(w.strategy, c)
	switch {
	case o.Moved:
		w.Moved++
	case o.Category != "":
		w.Hold(c.Pod, o)
	}
	return o
}

// Hold records a pod of the group that stays without a refused Move: with
// the zero Outcome, one the strategy did not propose because the planner
// would not evict it now (the planner supplies the reason).
func (w *Need) Hold(p *cluster.Pod, o Outcome) {
	for _, r := range w.Refused {
		if r.Pod == p {
			return
		}
	}
	w.Refused = append(w.Refused, Refusal{Pod: p, Outcome: o})
}

// HoldCounted is Hold for a pod the plan counts rather than lists, when
// it is one the group needed (see Counter).
func (w *Need) HoldCounted(p *cluster.Pod, o Outcome) {
	n := len(w.Refused)
	w.Hold(p, o)
	if len(w.Refused) > n {
		w.Refused[n].Counted = true
	}
}

// Missing is how many more pods the group needs.
func (w *Need) Missing() int { return max(0, w.Pods-w.Moved) }

// Done records the pods the group needed and could not move.
func (w *Need) Done() {
	for _, r := range w.Refused[:min(len(w.Refused), w.Missing())] {
		w.Skip(r)
	}
}

// Skip records one refused pod as skipped, or counts it.
func (w *Need) Skip(r Refusal) {
	if r.Counted {
		w.cycle.Count(w.strategy, r.Pod, r.Outcome)
		return
	}
	w.cycle.Mover.Skip(w.strategy, r.Pod, r.Outcome)
}

// Count records a pod the strategy needed to move and did not propose, as
// Mover.Skip does, to be counted rather than listed when the Mover is a
// Counter.
func (c *Cycle) Count(strategy string, p *cluster.Pod, o Outcome) {
	if m, ok := c.Mover.(Counter); ok {
		m.Count(strategy, p, o)
		return
	}
	c.Mover.Skip(strategy, p, o)
}
