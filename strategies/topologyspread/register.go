package topologyspread

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
	New:         func() framework.Strategy { return topologySpread{} },
	Descheduler: &descheduler,
}

// The optional parts of a strategy it implements.
var (
	_ framework.GuardRuler = topologySpread{}
)

// descheduler maps the descheduler's plugin of the same name onto the
// strategy.
var descheduler = policy.DeschedulerPlugin{
	Point: policy.PointBalance,
	Args: map[string]policy.ArgRule{
		"namespaces": policy.NamespacesArg, "labelSelector": policy.LabelSelectorArg,
		"constraints":            {To: "constraints"},
		"topologyBalanceNodeFit": {Note: "rebalancer never evicts a pod that no other node can take, as the descheduler's nodeFit does, when it picks the domains to balance too"},
	},
	// includeSoftConstraints becomes constraints: [DoNotSchedule, ScheduleAnyway].
	V1alpha1Args: map[string]string{"namespaces": "namespaces", "labelSelector": "labelSelector", "includeSoftConstraints": "constraints"},
}
