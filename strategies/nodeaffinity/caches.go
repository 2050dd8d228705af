package nodeaffinity

import (
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// caches is what the strategy keeps for the rest of a cycle.
type caches struct {
	// preferred holds the nodes' scores by set of preferred terms (see
	// preferredScores).
	preferred map[string][]int64
}

var cycleCaches = framework.NewSlot[caches]()
