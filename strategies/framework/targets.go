package framework

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
)

// CanTake reports whether node n could take pod p in View v by the rules
// the planner applies to a move: the policy's nodeSelector, a node the pod
// may stay on, the guard, and every filter of the scheduler. Strategies ask
// it to choose a target before proposing a move, so that a pod is proposed
// only where it can go.
func (c *Cycle) CanTake(v View, strategy string, p *cluster.Pod, n *cluster.Node) bool {
	if !c.Policy.SelectsNode(n.Labels) || StaysOnlyAWhile(p, n) {
		return false
	}
	if c.guard != nil {
		if ok, _ := c.guard.check(v, strategy, p, n); !ok {
			return false
		}
	}
	ok, _ := c.Placer.Fits(v.Snapshot, p, n)
	return ok
}

// StaysOnlyAWhile reports whether the node has a NoExecute taint that the
// pod tolerates only for its tolerationSeconds: kube-scheduler admits the
// pod there and the taint manager evicts it later, so the planner never
// sends it there, and no strategy counts the node as room for it.
func StaysOnlyAWhile(p *cluster.Pod, n *cluster.Node) bool {
	_, _, temporary := cluster.TemporaryNoExecute(p.Pod, n.Node)
	return temporary
}

// GuardAdmits reports whether the guard lets the strategy move p to n in
// View v: true when the policy needs no guard.
func (c *Cycle) GuardAdmits(v View, strategy string, p *cluster.Pod, n *cluster.Node) bool {
	if c.guard == nil {
		return true
	}
	ok, _ := c.guard.check(v, strategy, p, n)
	return ok
}
