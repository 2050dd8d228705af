package planner

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
)

// EvictableTogether returns why the pods cannot all be evicted in this
// cycle, or "" when they can: each is checked as Evictable checks it, with
// the limits and disruption budgets that the ones before it would use
// already spent. A strategy that must move a whole set or nothing (emptying
// a node) asks it first. Nothing is recorded.
func (c *cycle) EvictableTogether(strategy string, pods []*cluster.Pod) string {
	savedCounts, savedBudgets, savedStep := c.counts, c.budgets, c.step
	defer func() { c.counts, c.budgets, c.step = savedCounts, savedBudgets, savedStep }()
	c.counts, c.budgets = savedCounts.clone(), savedBudgets.clone()
	for _, p := range pods {
		if _, why := c.check(strategy, p); why != "" {
			return p.Key + ": " + why
		}
		c.admit(p, c.snap.NodeOf(p), c.steadyVerdictsOf(strategy, p).surge)
	}
	return ""
}
