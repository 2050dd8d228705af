package planner

import (
	"fmt"
	"maps"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
)

// counts are the evictions planned so far in a cycle, for the limits: the
// total over the whole run, the others within the current step.
type counts struct {
	total       int32
	byNode      map[string]int32
	byNamespace map[string]int32
	byWorkload  map[cluster.Workload]int32
}

func newCounts() *counts {
	c := &counts{}
	c.newStep()
	return c
}

// newStep starts a step: the per-step limits start afresh, the total does
// not.
func (c *counts) newStep() {
	c.byNode = make(map[string]int32)
	c.byNamespace = make(map[string]int32)
	c.byWorkload = make(map[cluster.Workload]int32)
}

func (c *counts) clone() *counts {
	return &counts{total: c.total, byNode: maps.Clone(c.byNode), byNamespace: maps.Clone(c.byNamespace), byWorkload: maps.Clone(c.byWorkload)}
}

// totalReached says whether limits.total allows no more evictions this run.
func (c *counts) totalReached(l policy.Limits) string {
	if l.Total != nil && c.total >= *l.Total {
		return fmt.Sprintf("limits.total reached (%d evictions this cycle)", *l.Total)
	}
	return ""
}

// stepExceeded returns which per-step limit one more eviction of the pod,
// from the node, would break in the current step, or "".
func (c *counts) stepExceeded(l policy.Limits, perNamespace *int32, p *cluster.Pod, from *cluster.Node) string {
	if from != nil && l.PerNode != nil && c.byNode[from.Name] >= *l.PerNode {
		return fmt.Sprintf("limits.perNode reached on %s (%d)", from.Name, *l.PerNode)
	}
	if perNamespace != nil && c.byNamespace[p.Namespace] >= *perNamespace {
		return fmt.Sprintf("limits.perNamespace reached in %s (%d)", p.Namespace, *perNamespace)
	}
	if !p.Workload.IsZero() && l.PerWorkload != nil && c.byWorkload[p.Workload] >= *l.PerWorkload {
		return fmt.Sprintf("limits.perWorkload reached for %s (%d)", p.Workload, *l.PerWorkload)
	}
	return ""
}

func (c *counts) add(p *cluster.Pod, from *cluster.Node) {
	c.total++
	if from != nil {
		c.byNode[from.Name]++
	}
	c.byNamespace[p.Namespace]++
	if !p.Workload.IsZero() {
		c.byWorkload[p.Workload]++
	}
}
