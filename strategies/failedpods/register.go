package failedpods

import (
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// Registration is the strategy's row of the table of built-in strategies
// (package strategies).
var Registration = framework.Registration{
	Name:    Name,
	NewArgs: func() policy.StrategyArgs { return new(policy.RemoveFailedPodsArgs) },
	New:     func() framework.Strategy { return failedPods{} },
}

// The optional parts of a strategy it implements.
var (
	_ framework.PlacementFree = failedPods{}
)
