package topologyspread

import (
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// Registration is the strategy's row of the table of built-in strategies
// (package strategies).
var Registration = framework.Registration{
	Name:    Name,
	NewArgs: func() policy.StrategyArgs { return new(policy.RemovePodsViolatingTopologySpreadConstraintArgs) },
	New:     func() framework.Strategy { return topologySpread{} },
}

// The optional parts of a strategy it implements.
var (
	_ framework.GuardRuler = topologySpread{}
)
