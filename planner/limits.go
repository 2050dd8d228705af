package planner

import (
	"fmt"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
)

// counts are the evictions planned so far in a cycle, for the limits.
type counts struct {
	total       int32
	byNode      map[string]int32
	byNamespace map[string]int32
	byWorkload  map[cluster.Workload]int32
}

func newCounts() *counts {
	return &counts{
		byNode:      make(map[string]int32),
		byNamespace: make(map[string]int32),
		byWorkload:  make(map[cluster.Workload]int32),
	}
}

// exceeded returns which limit one more eviction of the pod, from the node,
// would break, or "".
func (c *counts) exceeded(l policy.Limits, perNamespace *int32, p *cluster.Pod, from *cluster.Node) string {
	if l.Total != nil && c.total >= *l.Total {
		return fmt.Sprintf("limits.total reached (%d evictions this cycle)", *l.Total)
	}
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
