package removeduplicates

import (
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// Registration is what rebalancer needs to know of the strategy: its
// arguments, the strategy, and the descheduler plugin it stands for. The
// table of built-in strategies (package strategies) lists it.
var Registration = framework.Registration{
	Name:        Name,
	NewArgs:     func() policy.StrategyArgs { return new(Args) },
	New:         func() framework.Strategy { return removeDuplicates{} },
	Descheduler: &descheduler,
}

// The optional parts of a strategy it implements.
var (
	_ framework.GuardRuler = removeDuplicates{}
)

// descheduler maps the descheduler's plugin of the same name onto the
// strategy.
var descheduler = policy.DeschedulerPlugin{
	Point: policy.PointBalance,
	Args: map[string]policy.ArgRule{
		"namespaces":        policy.NamespacesArg,
		"excludeOwnerKinds": {To: "excludeOwnerKinds"},
	},
	V1alpha1Params: "removeDuplicates",
	V1alpha1Args:   policy.SameArgs("namespaces", "excludeOwnerKinds"),
}
