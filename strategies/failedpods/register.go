package failedpods

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
	New:         func() framework.Strategy { return failedPods{} },
	Descheduler: &descheduler,
}

// The optional parts of a strategy it implements.
var (
	_ framework.PlacementFree = failedPods{}
)

// descheduler maps the descheduler's plugin of the same name onto the
// strategy.
var descheduler = policy.DeschedulerPlugin{
	Point: policy.PointDeschedule,
	Args: map[string]policy.ArgRule{
		"namespaces": policy.NamespacesArg, "labelSelector": policy.LabelSelectorArg,
		"excludeOwnerKinds":       {To: "excludeOwnerKinds"},
		"minPodLifetimeSeconds":   {To: "minPodLifetimeSeconds"},
		"reasons":                 {To: "reasons"},
		"exitCodes":               {To: "exitCodes"},
		"includingInitContainers": {To: "includingInitContainers"},
	},
	V1alpha1Params: "failedPods",
	V1alpha1Args:   policy.SameArgs("namespaces", "labelSelector", "excludeOwnerKinds", "minPodLifetimeSeconds", "reasons", "includingInitContainers"),
	FailedOnly:     true,
}
