package strategies

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
)

// canTake reports whether node n could take pod p in view v by the rules
// the planner applies to a move: the policy's nodeSelector, a node the pod
// may stay on, the guard, and every filter of the scheduler. Strategies ask
// it to choose a target before proposing a move, so that a pod is proposed
// only where it can go.
func (in *Input) canTake(v view, strategy string, p *cluster.Pod, n *cluster.Node) bool {
	if !in.Policy.SelectsNode(n.Labels) || staysOnlyAWhile(p, n) {
		return false
	}
	if in.guard != nil {
		if ok, _ := in.guard.check(v, strategy, p, n); !ok {
			return false
		}
	}
	ok, _ := in.Placer.Fits(v.snap, p, n)
	return ok
}

// staysOnlyAWhile reports whether the node has a NoExecute taint that the
// pod tolerates only for its tolerationSeconds: kube-scheduler admits the
// pod there and the taint manager evicts it later, so the planner never
// sends it there, and no strategy counts the node as room for it.
func staysOnlyAWhile(p *cluster.Pod, n *cluster.Node) bool {
	_, _, temporary := cluster.TemporaryNoExecute(p.Pod, n.Node)
	return temporary
}
