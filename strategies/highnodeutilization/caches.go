package highnodeutilization

import "github.com/kube-rebalancer/rebalancer/strategies/framework"

// caches is what the strategy keeps for the rest of a cycle: its guard
// rule, which its run settles.
type caches struct {
	rule *highUtilizationRule
}

var cycleCaches = framework.NewSlot[caches]()
