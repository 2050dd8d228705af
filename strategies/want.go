package strategies

import "github.com/kube-rebalancer/rebalancer/cluster"

// want is a strategy's need to move k pods out of a group: the replicas of
// a workload beyond a node's share, the pods a domain holds past a spread
// constraint's maxSkew. The strategy proposes the group's pods through it,
// in its order of preference, and may go on to further pods when one is
// refused, since another may fit where the first did not. Only the pods
// the group needed and did not get are skipped: when the strategy is done
// with the group, k less the pods that moved, each once, the first refused
// first. Refused pods beyond those were alternatives and are not news.
type want struct {
	in       *Input
	strategy string
	// need is k. A strategy whose need is known only at the end (how many
	// pods bring a node back within its target) sets it before done.
	need    int
	moved   int
	refused []refusal
}

// refusal is a pod of the group that stayed, and why.
type refusal struct {
	pod *cluster.Pod
	o   Outcome
}

// want starts a group of which the strategy needs need pods to move.
func (in *Input) want(strategy string, need int) *want {
	return &want{in: in, strategy: strategy, need: need}
}

// move proposes a pod of the group.
func (w *want) move(c Candidate) Outcome {
	o := w.in.propose(w.strategy, c)
	switch {
	case o.Moved:
		w.moved++
	case o.Category != "":
		w.hold(c.Pod, o)
	}
	return o
}

// hold records a pod of the group that stays without a refused Move: with
// the zero Outcome, one the strategy did not propose because the planner
// would not evict it now (the planner supplies the reason).
func (w *want) hold(p *cluster.Pod, o Outcome) {
	for _, r := range w.refused {
		if r.pod == p {
			return
		}
	}
	w.refused = append(w.refused, refusal{p, o})
}

// missing is how many more pods the group needs.
func (w *want) missing() int { return max(0, w.need-w.moved) }

// done records the pods the group needed and could not move.
func (w *want) done() {
	for _, r := range w.refused[:min(len(w.refused), w.missing())] {
		w.skip(r)
	}
}

// skip records one refused pod as skipped.
func (w *want) skip(r refusal) { w.in.Mover.Skip(w.strategy, r.pod, r.o) }
