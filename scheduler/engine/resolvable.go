package engine

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// Resolvable runs the decision of Schedule for pod in snap, without
// options, for preemption: PreFilter, the filters with the pods nominated
// to each node, and the extenders' filters. fits says that a node passes
// them all, so that nothing needs preempting. Otherwise nodes are the
// nodes, by index in increasing order, whose rejection removing pods may
// resolve: every filter that turned one down said Unschedulable, not
// UnschedulableAndUnresolvable. A PreFilter that rejects every node makes
// none resolvable. err is an extender's error, which fails the decision
// before preemption runs.
func (e *Engine) Resolvable(snap *cluster.Snapshot, pod *cluster.Pod) (nodes []int32, fits bool, err error) {
	c := e.newCycle(snap, pod)
	defer e.putCycle(c)
	only, rejected := c.preFilter(Options{})
	if rejected != nil {
		return nil, false, nil
	}
	c.setExcluded(Options{})
	c.setNominated()
	c.filterNodes(only, Options{})
	if len(c.feasible) > 0 {
		// The extenders filter what the plugins passed, as in Schedule;
		// a node they turn down stays resolvable unless they call it
		// unresolvable.
		if err := c.filterExtenders(); err != nil {
			return nil, false, err
		}
	}
	if len(c.feasible) > 0 {
		return nil, true, nil
	}
	// One allocation of the most it can hold: the caller keeps the list.
	nodes = make([]int32, 0, len(c.Nodes()))
	for i := range c.Nodes() {
		if c.resolvable(i) {
			nodes = append(nodes, int32(i))
		}
	}
	return nodes, false, nil
}

// resolvable reports whether removing pods could make node i pass: every
// filter that turned it down did so as Unschedulable, not
// UnschedulableAndUnresolvable.
func (c *cycle) resolvable(i int) bool {
	switch v := c.verdict[i]; v {
	case verdictFeasible:
		return false
	case verdictNominated:
		return !c.nominated.failed[int32(i)].Unresolvable
	case verdictExtender:
		return !c.ext.unresolvable[i]
	case verdictExcluded, verdictOnly, verdictAccept, verdictRejectAll, verdictNotEvaluated, verdictStatic:
		return false
	default:
		f := c.active[v-verdictFilter]
		return !unresolvable(f, &c.Cycle, i, f.Filter(&c.Cycle, i))
	}
}

// unresolvable reports whether filter f's rejection of node i is one
// preemption cannot resolve (see UnresolvableFilter).
func unresolvable(f framework.FilterPlugin, c *framework.Cycle, i int, reasons []string) bool {
	if u, ok := f.(framework.UnresolvableFilter); ok {
		return u.Unresolvable(c, i, reasons)
	}
	_, static := f.(framework.StaticFilterPlugin)
	return static
}
