package framework

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
)

// NodeRefuser is a guard rule that can tell from a node alone that it
// refuses every pod there, whatever the pod asks for: the guard then keeps
// the nodes that no such rule refuses, so that a placement searches only
// those (Candidate.Targets) instead of filtering every node first and
// asking the rule afterwards.
type NodeRefuser interface {
	GuardRule
	// RefusesEveryPod must depend only on the node's own state (what its
	// pods take), which only a move from or to the node changes.
	RefusesEveryPod(n *cluster.Node) bool
}

// guardTargets keeps, by node index, the nodes the guard may admit a pod
// to: the policy's nodes that no NodeRefuser refuses as they stand.
type guardTargets struct {
	refusers []NodeRefuser
	// refused is by node index; a node the policy does not select stays
	// refused, as the planner refuses it.
	refused []bool
	policy  []bool
	// list is the nodes not refused, in increasing index order; nil when
	// it holds every node, so that a search looks at every node as it
	// would without it.
	list  []int32
	built bool
	// dirty holds the nodes a move took a pod from or gave one to since
	// the list was last brought up to date.
	dirty []int32
}

// touched records that a move changed what the node's pods take.
func (t *guardTargets) touched(i int) {
	if t.built {
		t.dirty = append(t.dirty, int32(i))
	}
}

// targets returns the nodes the guard may admit a pod to, in increasing
// index order, or nil when that is every node.
func (t *guardTargets) targets(c *Cycle) []int32 {
	if len(t.refusers) == 0 {
		return nil
	}
	nodes := c.Snapshot.Nodes()
	if !t.built {
		t.built = true
		t.refused = make([]bool, len(nodes))
		t.policy = make([]bool, len(nodes))
		for i := range t.refused {
			t.refused[i] = true
		}
		for _, n := range c.Selected() {
			t.policy[n.Index()] = true
			t.refused[n.Index()] = t.refuses(nodes[n.Index()])
		}
		t.rebuild()
		return t.list
	}
	changed := false
	for _, i := range t.dirty {
		if !t.policy[i] {
			continue
		}
		if r := t.refuses(nodes[i]); r != t.refused[i] {
			t.refused[i] = r
			changed = true
		}
	}
	t.dirty = t.dirty[:0]
	if changed {
		t.rebuild()
	}
	return t.list
}

func (t *guardTargets) refuses(n *cluster.Node) bool {
	for _, r := range t.refusers {
		if r.RefusesEveryPod(n) {
			return true
		}
	}
	return false
}

// rebuild makes a new list rather than writing over the old one, which a
// candidate may still hold.
func (t *guardTargets) rebuild() {
	var list []int32
	for i, r := range t.refused {
		if !r {
			list = append(list, int32(i))
		}
	}
	if len(list) == len(t.refused) {
		list = nil
	}
	t.list = list
}
