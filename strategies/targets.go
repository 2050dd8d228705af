package strategies

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
)

// canTake reports whether node n could take pod p in view v by the rules
// the planner applies to a move: the policy's nodeSelector, the guard, and
// every filter of the scheduler. Strategies ask it to choose a target
// before proposing a move, so that a pod is proposed only where it can go.
func (in *Input) canTake(v view, strategy string, p *cluster.Pod, n *cluster.Node) bool {
	if !in.Policy.SelectsNode(n.Labels) {
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
