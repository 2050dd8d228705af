package podlifetime

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
	New:         func() framework.Strategy { return podLifeTime{} },
	Descheduler: &descheduler,
}

// The optional parts of a strategy it implements.
var (
	_ framework.PlacementFree = podLifeTime{}
)

// descheduler maps the descheduler's plugin of the same name onto the
// strategy.
var descheduler = policy.DeschedulerPlugin{
	Point: policy.PointDeschedule,
	Args: map[string]policy.ArgRule{
		"namespaces": policy.NamespacesArg, "labelSelector": policy.LabelSelectorArg,
		"maxPodLifeTimeSeconds":        {To: "maxPodLifeTimeSeconds"},
		"states":                       {To: "states"},
		"includingInitContainers":      {To: "includingInitContainers"},
		"conditions":                   {To: "conditions"},
		"exitCodes":                    {To: "exitCodes"},
		"ownerKinds":                   {To: "ownerKinds"},
		"includingEphemeralContainers": {To: "includingEphemeralContainers"},
	},
	V1alpha1Params: "podLifeTime",
	// The descheduler's conversion appends podStatusPhases to states.
	V1alpha1Args: map[string]string{"namespaces": "namespaces", "labelSelector": "labelSelector",
		"maxPodLifeTimeSeconds": "maxPodLifeTimeSeconds", "states": "states", "podStatusPhases": "states"},
}
