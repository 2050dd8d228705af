package planner

import (
	"maps"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// EvictableTogether returns why the pods cannot all be evicted in this
// cycle, or "" when they can: each is checked as Evictable checks it, with
// the limits and disruption budgets that the ones before it would use
// already spent. A strategy that must move a whole set or nothing (emptying
// a node) asks it first. Nothing is recorded.
func (c *cycle) EvictableTogether(pods []*cluster.Pod) string {
	savedCounts, savedBudgets := c.counts, c.budgets
	defer func() { c.counts, c.budgets = savedCounts, savedBudgets }()
	c.counts = &counts{
		total:       savedCounts.total,
		byNode:      maps.Clone(savedCounts.byNode),
		byNamespace: maps.Clone(savedCounts.byNamespace),
		byWorkload:  maps.Clone(savedCounts.byWorkload),
	}
	c.budgets = &budgets{left: maps.Clone(savedBudgets.left)}
	for _, p := range pods {
		if _, why := c.check(p); why != "" {
			return p.Key + ": " + why
		}
		c.counts.add(p, c.snap.NodeOf(p))
		c.budgets.spend(c.snap, p)
	}
	return ""
}
