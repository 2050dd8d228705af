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
}

// NewGuard returns the guard of the policy, or nil when it needs none. The
// rules, each kept with its strategy:
//
//   - LowNodeUtilization: no target above the target thresholds of its node
//     pool (the next run would move pods off it);
//   - HighNodeUtilization: no target among the nodes it empties, unless
//     HighNodeUtilization itself moves the pod;
//   - RemovePodsViolatingNodeTaints with includePreferNoSchedule: no target
//     with a PreferNoSchedule taint the pod does not tolerate and the
//     strategy acts on (NoSchedule ones the scheduler already refuses);
//   - RemovePodsViolatingNodeAffinity with preferred: no target that matches
//     the pod's preferred node affinity with less weight than its node;
//   - RemoveDuplicates: no target that already holds its share of the pod's
//     duplicates;
//   - RemovePodsViolatingTopologySpreadConstraint: no target that takes any
//     balanced constraint of the pod (ScheduleAnyway ones included when the
//     strategy balances them) past its maxSkew, or further past it.
//
// Required node affinity and inter-pod anti-affinity need no rule: the
// scheduler's filters already refuse a target that breaks them.
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

func newGuard(in *Input) *guard {
	on := make(map[string]bool)
	for _, name := range in.Policy.Enabled() {
		on[name] = true
	}
	g := &guard{}
	add := func(r guardRule) {
		if r != nil {
			g.rules = append(g.rules, r)
		}
	}
	if on[policy.LowNodeUtilization] {
		add(newLowUtilizationRule(in))
	}
	if on[policy.HighNodeUtilization] {
		add(newHighUtilizationRule(in))
	}
	if on[policy.RemovePodsViolatingNodeTaints] {
		add(preferNoScheduleRule{in: in})
	}
	if on[policy.RemovePodsViolatingNodeAffinity] {
		add(&preferredAffinityRule{in: in})
	}
	if on[policy.RemoveDuplicates] {
		add(&duplicatesRule{in: in})
	}
	if on[policy.RemovePodsViolatingTopologySpreadConstraint] {
		add(&spreadRule{in: in})
	}
	if len(g.rules) == 0 {
		return nil
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
