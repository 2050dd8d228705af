package strategies

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
)

// Guard is a condition every move of a cycle must meet, whichever strategy
// proposes it, so that no other strategy of the same policy would want to
// undo it on the next cycle.
type Guard func(p *cluster.Pod, to *cluster.Node) (ok bool, reason string)

// guardRule is one strategy's share of the guard: what a target must not
// break of that strategy's condition. A rule reads placements from the view
// it is given, which is the working snapshot or a fork a strategy simulates
// on.
type guardRule interface {
	check(v view, strategy string, p *cluster.Pod, to *cluster.Node) (ok bool, reason string)
}

// preparer is a rule that needs to look at the cycle before a strategy's
// first move.
type preparer interface {
	prepare(in *Input, strategy string)
}

// guard is every rule of the policy's strategies.
type guard struct {
	rules []guardRule
	// targets is where the rules may admit a pod at all.
	targets guardTargets
}

// guardRuler is implemented by a strategy whose condition another
// strategy's move could break: its guardRule keeps every move of the cycle
// within that condition, or is nil when the policy gives it nothing to keep.
// Required node affinity and inter-pod anti-affinity need no rule: the
// scheduler's filters already refuse a target that breaks them.
type guardRuler interface {
	guardRule(in *Input) guardRule
}

// NewGuard returns the guard of the policy, or nil when it needs none: the
// rules of its enabled strategies (see each guardRule).
func NewGuard(in *Input) Guard {
	g := newGuard(in)
	in.guard = g
	if g == nil {
		return nil
	}
	return func(p *cluster.Pod, to *cluster.Node) (bool, string) {
		return g.check(in.now(), in.current, p, to)
	}
}

// newGuard asks the enabled strategies for their rules: first those that
// classify nodes, whose reason for refusing a node is about the node as a
// whole, then the others, each group in the order the strategies run. A
// node that two rules refuse is reported with the first one's reason.
func newGuard(in *Input) *guard {
	g := &guard{}
	enabled := in.Policy.Enabled()
	for _, nodeLevel := range []bool{true, false} {
		for _, name := range enabled {
			if (len(policy.NewArgs(name).NodeLevelFields()) > 0) != nodeLevel {
				continue
			}
			if s, ok := Get(name).(guardRuler); ok {
				if r := s.guardRule(in); r != nil {
					g.rules = append(g.rules, r)
				}
			}
		}
	}
	if len(g.rules) == 0 {
		return nil
	}
	for _, r := range g.rules {
		if nr, ok := r.(nodeRefuser); ok {
			g.targets.refusers = append(g.targets.refusers, nr)
		}
	}
	return g
}

// check applies every rule to a move of p, proposed by strategy, to the
// node to, in view v.
func (g *guard) check(v view, strategy string, p *cluster.Pod, to *cluster.Node) (bool, string) {
	for _, r := range g.rules {
		if ok, why := r.check(v, strategy, p, to); !ok {
			return false, why
		}
	}
	return true, ""
}

// prepare lets the rules that need it look at the cycle before strategy
// proposes a move.
func (g *guard) prepare(in *Input, strategy string) {
	for _, r := range g.rules {
		if p, ok := r.(preparer); ok {
			p.prepare(in, strategy)
		}
	}
}
