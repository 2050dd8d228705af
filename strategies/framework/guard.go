package framework

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
)

// Guard is a condition every move of a cycle must meet, whichever strategy
// proposes it, so that no other strategy of the same policy would want to
// undo it on the next cycle.
type Guard func(p *cluster.Pod, to *cluster.Node) (ok bool, reason string)

// GuardRule is one strategy's share of the guard: what a target must not
// break of that strategy's condition. A rule reads placements from the View
// it is given, which is the working snapshot or a fork a strategy simulates
// on.
type GuardRule interface {
	// Check says whether the strategy named strategy may move p to the
	// node to, in View v, and why not.
	Check(v View, strategy string, p *cluster.Pod, to *cluster.Node) (ok bool, reason string)
}

// Preparer is a rule that needs to look at the cycle before a strategy's
// first move.
type Preparer interface {
	Prepare(c *Cycle, strategy string)
}

// guard is every rule of the policy's strategies.
type guard struct {
	rules []GuardRule
	// targets is where the rules may admit a pod at all.
	targets guardTargets
}

// GuardRuler is implemented by a strategy whose condition another
// strategy's move could break: its GuardRule keeps every move of the cycle
// within that condition, or is nil when the policy gives it nothing to keep.
// Required node affinity and inter-pod anti-affinity need no rule: the
// scheduler's filters already refuse a target that breaks them.
type GuardRuler interface {
	Strategy
	GuardRule(c *Cycle) GuardRule
}

// NewGuard returns the guard of the policy, or nil when it needs none: the
// rules of its enabled strategies (see each GuardRule).
func NewGuard(c *Cycle) Guard {
	g := newGuard(c)
	c.guard = g
	if g == nil {
		return nil
	}
	return func(p *cluster.Pod, to *cluster.Node) (bool, string) {
		return g.check(c.Now(), c.current, p, to)
	}
}

// newGuard asks the enabled strategies for their rules: first those that
// classify nodes, whose reason for refusing a node is about the node as a
// whole, then the others, each group in the order the strategies run. A
// node that two rules refuse is reported with the first one's reason.
func newGuard(c *Cycle) *guard {
	g := &guard{}
	enabled := c.Policy.Enabled()
	for _, nodeLevel := range []bool{true, false} {
		for _, name := range enabled {
			if (len(policy.NewArgs(name).NodeLevelFields()) > 0) != nodeLevel {
				continue
			}
			if s, ok := Get(name).(GuardRuler); ok {
				if r := s.GuardRule(c); r != nil {
					g.rules = append(g.rules, r)
				}
			}
		}
	}
	if len(g.rules) == 0 {
		return nil
	}
	for _, r := range g.rules {
		if nr, ok := r.(NodeRefuser); ok {
			g.targets.refusers = append(g.targets.refusers, nr)
		}
	}
	return g
}

// check applies every rule to a move of p, proposed by strategy, to the
// node to, in View v.
func (g *guard) check(v View, strategy string, p *cluster.Pod, to *cluster.Node) (bool, string) {
	for _, r := range g.rules {
		if ok, why := r.Check(v, strategy, p, to); !ok {
			return false, why
		}
	}
	return true, ""
}

// prepare lets the rules that need it look at the cycle before strategy
// proposes a move.
func (g *guard) prepare(c *Cycle, strategy string) {
	for _, r := range g.rules {
		if p, ok := r.(Preparer); ok {
			p.Prepare(c, strategy)
		}
	}
}
