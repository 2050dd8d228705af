package strategies

import (
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
)

// nodeGroup is the nodes a utilization strategy balances together: one
// node pool, or the nodes that no pool selects. It holds names, not nodes:
// the snapshot copies a node when a move touches it.
type nodeGroup struct {
	// pool is the pool's name, "" for the nodes of no pool.
	pool  string
	names []string
}

// groupByPool puts each node in the first pool that selects it, and the
// nodes no pool selects in a last group when withRest is set (otherwise
// they are left out). Groups keep the pools' order and nodes their name
// order.
func groupByPool(pools []*policy.NodePool, withRest bool, nodes []*cluster.Node) []nodeGroup {
	selectors := make([]labels.Selector, len(pools))
	groups := make([]nodeGroup, len(pools), len(pools)+1)
	for i, p := range pools {
		selectors[i] = p.Selector()
		groups[i].pool = p.Name
	}
	var rest nodeGroup
	for _, n := range nodes {
		placed := false
		for i, sel := range selectors {
			if sel.Matches(labels.Set(n.Labels)) {
				groups[i].names = append(groups[i].names, n.Name)
				placed = true
				break
			}
		}
		if !placed {
			rest.names = append(rest.names, n.Name)
		}
	}
	if withRest {
		groups = append(groups, rest)
	}
	return groups
}

// in returns " in pool <name>" for a pool's group, for reasons.
func (g nodeGroup) in() string {
	if g.pool == "" {
		return ""
	}
	return " in node pool " + g.pool
}

// nodes returns the group's nodes as the snapshot holds them now.
func (g nodeGroup) nodes(snap *cluster.Snapshot) []*cluster.Node {
	out := make([]*cluster.Node, len(g.names))
	for i, name := range g.names {
		out[i] = snap.Node(name)
	}
	return out
}

// members returns the group's nodes out of nodes, which must be in name
// order, as Snapshot.Nodes and Input.Nodes are.
func (g nodeGroup) members(nodes []*cluster.Node) []*cluster.Node {
	out := make([]*cluster.Node, 0, len(g.names))
	i := 0
	for _, n := range nodes {
		if i < len(g.names) && n.Name == g.names[i] {
			out = append(out, n)
			i++
		}
	}
	return out
}
