package highnodeutilization

import (
	"fmt"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
	"github.com/kube-rebalancer/rebalancer/strategies/nodeutilization"
)

// belowMinImprovement returns why emptying the node is not worth its
// disruption, or "": every listed resource must be at least minImprovement
// points below its threshold. Emptying frees one node whatever its load,
// and costs the restart of every pod on it: a node just below the
// thresholds costs the most for the same gain, and one whose usage hovers
// at a threshold would be emptied on one run and not on the next.
func belowMinImprovement(b nodeutilization.Bands, args *Args, n *cluster.Node) string {
	if args.MinImprovement <= 0 {
		return ""
	}
	for _, r := range b.Resources {
		u := b.Meter.Util(n, r)
		if margin := b.Low[r] - u; margin < args.MinImprovement {
			return fmt.Sprintf("%s at %s is %s points below its threshold of %s; minImprovement is %s",
				b.Name(r), nodeutilization.Pct(u), nodeutilization.Points(margin), nodeutilization.Pct(b.Low[r]),
				nodeutilization.Points(args.MinImprovement))
		}
	}
	return ""
}

// skipBelowMinImprovement records the pods that emptying the node would
// have moved as skipped, for why.
func skipBelowMinImprovement(in *framework.Cycle, node string, pods []*cluster.Pod, why string) {
	for _, p := range pods {
		in.Mover.Skip(Name, p, framework.Outcome{Category: framework.BelowMinImprovement, Reason: "would empty " + node + ": " + why})
	}
}
