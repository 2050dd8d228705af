package maxage

import (
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// Registration is what rebalancer needs to know of the strategy: its
// arguments, which a policy configures, and the strategy itself.
var Registration = framework.Registration{
	Name:    Name,
	NewArgs: func() policy.StrategyArgs { return &Args{} },
	New:     func() framework.Strategy { return Strategy{} },
}
