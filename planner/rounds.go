package planner

import (
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/strategies"
)

// maxRounds bounds the rounds of one cycle. Each round but the last changes
// something (a move, of which there is one per pod at most, or a settled
// guard), so rounds end on their own; the bound only keeps a pathological
// cluster from costing many rounds of failed placements. Two or three are
// the rule.
const maxRounds = 8

// runRounds runs the strategies in order, and again while the cycle
// changes: a later strategy's moves can make room for what an earlier one
// could not do (a balancing move frees a node that a violating pod could not
// go to), and without another round the next cycle would find that work
// left over. A strategy runs again only when something changed since it
// last ran, so that a round costs only what can find new work. Candidates
// skipped in one round and moved in a later one are not reported as
// skipped.
func (c *cycle) runRounds(in *strategies.Input) {
	names := c.planner.Policy.Enabled()
	seen := make(map[string]uint64, len(names))
	for round := 1; round <= maxRounds; round++ {
		start := in.Changes()
		for _, name := range names {
			if c.Exhausted() {
				break
			}
			if at, ran := seen[name]; ran && at == in.Changes() {
				continue // nothing changed since it last looked
			}
			before, skippedBefore := len(c.plan.Moves), len(c.plan.Skipped)
			strategies.Get(name).Run(in)
			seen[name] = in.Changes()
			klog.V(1).InfoS("Strategy planned", "strategy", name, "round", round, "moves", len(c.plan.Moves)-before,
				"skipped", len(c.plan.Skipped)-skippedBefore)
		}
		if in.Changes() == start {
			break
		}
	}
	moved := make(map[string]bool, len(c.plan.Moves))
	for _, m := range c.plan.Moves {
		moved[m.Pod] = true
	}
	kept := c.plan.Skipped[:0]
	for _, s := range c.plan.Skipped {
		if !moved[s.Pod] {
			kept = append(kept, s)
		}
	}
	c.plan.Skipped = kept
}
