package lownodeutilization

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/nodeutilization"
)

// belowMinImprovement returns why moving the pod off node n would gain too
// little, or "" when it is worth it: its leaving must lower n's utilization
// of one of the resources above target (hot) by at least minImprovement
// points. A pod too small to matter costs a restart and changes nothing
// that the next run would see. A query rates the node, not its pods: what
// one pod's leaving gains is unknown, and the pod is not held back.
func belowMinImprovement(b nodeutilization.Bands, args *Args, n *cluster.Node, p *cluster.Pod, hot []corev1.ResourceName) string {
	if args.MinImprovement <= 0 || b.Meter == nodeutilization.ByScore || len(hot) == 0 {
		return ""
	}
	best, bestRes := -1.0, hot[0]
	for _, r := range hot {
		if d := b.Drop(n, p, r); d > best {
			best, bestRes = d, r
		}
	}
	if best >= args.MinImprovement {
		return ""
	}
	return fmt.Sprintf("would lower %s's %s by %s points; minImprovement is %s",
		n.Name, b.Name(bestRes), nodeutilization.Points(best), nodeutilization.Points(args.MinImprovement))
}
