package framework

import (
	"slices"
	"time"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// Observer is a strategy that looks at the cycle's cluster as it was read,
// before any strategy proposes a move: a utilization strategy counting how
// many runs in a row a node was over- or under-utilized. The planner calls
// Observe once a cycle, for each enabled strategy that implements it.
type Observer interface {
	Observe(c *Cycle)
}

// observations is what the cycle keeps of the counts of earlier runs and
// of the counts it makes.
type observations struct {
	earlier map[string]cluster.Observation
	made    []cluster.Observation
}

// Observe counts the node found in class now, by a sample taken at at,
// from what earlier runs counted (Cycle.Earlier), and returns the count.
// A node a strategy does not observe in a cycle has no count afterwards:
// its samples were stale or missing, or it was in no class.
func (c *Cycle) Observe(strategy string, n *cluster.Node, class string, at time.Time) int32 {
	o := &c.observations
	if o.earlier == nil {
		o.earlier = make(map[string]cluster.Observation, len(c.Earlier))
		for _, e := range c.Earlier {
			o.earlier[e.Strategy+"\x00"+e.Node] = e
		}
	}
	prev, ok := o.earlier[strategy+"\x00"+n.Name]
	if !ok {
		prev = cluster.Observation{Strategy: strategy, Node: n.Name}
	}
	next := cluster.NextObservation(prev, class, at)
	o.made = append(o.made, next)
	return next.Count
}

// Observations returns the counts the cycle's strategies made, by strategy
// and node: what the next run reads as Earlier.
func (c *Cycle) Observations() []cluster.Observation {
	out := slices.Clone(c.observations.made)
	slices.SortStableFunc(out, cluster.CompareObservations)
	return out
}
