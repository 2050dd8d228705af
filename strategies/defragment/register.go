package defragment

import (
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// Registration is what rebalancer needs to know of the strategy. The
// descheduler has no such plugin: `rebalancer convert` has nothing to
// translate.
var Registration = framework.Registration{
	Name:    Name,
	NewArgs: func() policy.StrategyArgs { return new(Args) },
	New:     func() framework.Strategy { return defragment{} },
}

// The optional parts of a strategy it implements.
var _ framework.PendingServer = defragment{}
