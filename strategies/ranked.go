package strategies

import (
	"cmp"
	"slices"
	"strings"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// ranked is a candidate with the figure that orders it among the
// candidates of its strategy: a pod's age, its number of restarts.
type ranked struct {
	Candidate
	rank int64
}

// offerInOrder proposes the candidates highest rank first, so that limits
// spend the cycle's evictions where they help most. Equal ranks go by pod
// key, so that the plan does not depend on the order of the snapshot.
func (in *Input) offerInOrder(strategy string, found []ranked) {
	slices.SortStableFunc(found, func(a, b ranked) int {
		if c := cmp.Compare(b.rank, a.rank); c != 0 {
			return c
		}
		return strings.Compare(a.Pod.Key, b.Pod.Key)
	})
	for _, c := range found {
		in.move(strategy, c.Candidate)
	}
}

// eachBoundPod calls fn for every pod, of any phase, bound to a node that
// the policy selects. Finished pods are among them: they hold no resources,
// so a node's Pods leaves them out, but deleting them is what some
// strategies are for.
func (in *Input) eachBoundPod(fn func(p *cluster.Pod)) {
	selected := make(map[string]bool, len(in.selected()))
	for _, n := range in.selected() {
		selected[n.Name] = true
	}
	for _, p := range in.Snapshot.Pods() {
		if selected[p.Spec.NodeName] {
			fn(p)
		}
	}
}
