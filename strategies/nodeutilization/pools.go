package nodeutilization

import (
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// NodeGroup is the nodes a utilization strategy balances together: one
// node pool, or the nodes that no pool selects. It holds names, not nodes:
// the snapshot copies a node when a move touches it.
type NodeGroup struct {
	// Pool is the pool's name, "" for the nodes of no pool.
	Pool  string
	Names []string
}

// GroupByPool puts each node in the first pool that selects it, and the
// nodes no pool selects in a last group when withRest is set (otherwise
// they are left out). Groups keep the pools' order and nodes their name
// order.
func GroupByPool(pools []*NodePool, withRest bool, nodes []*cluster.Node) []NodeGroup {
	selectors := make([]labels.Selector, len(pools))
	groups := make([]NodeGroup, len(pools), len(pools)+1)
	for i, p := range pools {
		selectors[i] = p.Selector()
		groups[i].Pool = p.Name
	}
	var rest NodeGroup
	for _, n := range nodes {
		placed := false
		for i, sel := range selectors {
			if sel.Matches(labels.Set(n.Labels)) {
				groups[i].Names = append(groups[i].Names, n.Name)
				placed = true
				break
			}
		}
		if !placed {
			rest.Names = append(rest.Names, n.Name)
		}
	}
	if withRest {
		groups = append(groups, rest)
	}
	return groups
}

// In returns " in pool <name>" for a pool's group, for reasons.
func (g NodeGroup) In() string {
	if g.Pool == "" {
		return ""
	}
	return " in node pool " + g.Pool
}

// Nodes returns the group's nodes as the snapshot holds them now.
func (g NodeGroup) Nodes(snap *cluster.Snapshot) []*cluster.Node {
	out := make([]*cluster.Node, len(g.Names))
	for i, name := range g.Names {
		out[i] = snap.Node(name)
	}
	return out
}

// Members returns the group's nodes out of nodes, which must be in name
// order, as Snapshot.Nodes and Cycle.Nodes are.
func (g NodeGroup) Members(nodes []*cluster.Node) []*cluster.Node {
	out := make([]*cluster.Node, 0, len(g.Names))
	i := 0
	for _, n := range nodes {
		if i < len(g.Names) && n.Name == g.Names[i] {
			out = append(out, n)
			i++
		}
	}
	return out
}
