package removeduplicates

import (
	"fmt"
	"slices"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// holdBelowMinImprovement skips the node's extra duplicates when there are
// fewer of them than minImprovement asks, and reports whether it did. The
// gain of the moves is how far they lower the node's count, down to its
// share: a node one pod past its share (the rounding of an uneven spread)
// gains one pod of spread for a restart.
func holdBelowMinImprovement(in *framework.Cycle, need *framework.Need, w cluster.Workload, node string, pods []*cluster.Pod, share int) bool {
	a, _ := in.Args(Name, pods[0]).(*Args)
	extra := len(pods) - share
	if a == nil || a.MinImprovement <= 0 || extra >= int(a.MinImprovement) {
		return false
	}
	why := fmt.Sprintf("would lower %s's count of %s from %d to %d, by %d; minImprovement is %d",
		node, w, len(pods), share, extra, a.MinImprovement)
	ordered := slices.Clone(pods)
	slices.SortStableFunc(ordered, framework.LeaveOrder)
	for _, p := range ordered[:extra] {
		if !in.Evictable(Name, p) {
			need.Hold(p, framework.Outcome{}) // its own reason comes first
			continue
		}
		need.Hold(p, framework.Outcome{Category: framework.BelowMinImprovement, Reason: why})
	}
	need.Done()
	return true
}
