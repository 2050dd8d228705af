package nodetaints

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
	New:         func() framework.Strategy { return nodeTaints{} },
	Descheduler: &descheduler,
}

// The optional parts of a strategy it implements.
var (
	_ framework.GuardRuler    = nodeTaints{}
	_ framework.PlacementFree = nodeTaints{}
)

// descheduler maps the descheduler's plugin of the same name onto the
// strategy.
var descheduler = policy.DeschedulerPlugin{
	Point: policy.PointDeschedule,
	Args: map[string]policy.ArgRule{
		"namespaces": policy.NamespacesArg, "labelSelector": policy.LabelSelectorArg,
		"includePreferNoSchedule": {To: "includePreferNoSchedule"},
		"excludedTaints":          {To: "excludedTaints"},
		"includedTaints":          {To: "includedTaints"},
	},
	V1alpha1Args: policy.SameArgs("namespaces", "labelSelector", "includePreferNoSchedule", "excludedTaints", "includedTaints"),
	Differs: func(args map[string]any) string {
		_, ex := args["excludedTaints"]
		_, in := args["includedTaints"]
		if ex || in {
			return ""
		}
		return "with neither excludedTaints nor includedTaints the descheduler acts on every NoSchedule taint, the cordon's " +
			"(node.kubernetes.io/unschedulable) and the node conditions' included; rebalancer leaves those alone (docs/strategies.md)"
	},
}
