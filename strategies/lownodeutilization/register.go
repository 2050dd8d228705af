package lownodeutilization

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
	New:         func() framework.Strategy { return lowNodeUtilization{} },
	Descheduler: &descheduler,
}

// The optional parts of a strategy it implements.
var (
	_ framework.GuardRuler = lowNodeUtilization{}
)

// descheduler maps the descheduler's plugin of the same name onto the
// strategy.
var descheduler = policy.DeschedulerPlugin{
	Point: policy.PointBalance,
	Args: map[string]policy.ArgRule{
		"thresholds":             {To: "thresholds"},
		"targetThresholds":       {To: "targetThresholds"},
		"useDeviationThresholds": {To: "useDeviationThresholds"},
		"numberOfNodes":          {To: "numberOfNodes"},
		"evictableNamespaces":    policy.EvictableNamespacesArg,
		"evictionLimits":         {To: "evictionLimits"},
		"metricsUtilization":     {To: "metricsUtilization"},
	},
	V1alpha1Params: "nodeResourceUtilizationThresholds",
	V1alpha1Args: map[string]string{"namespaces": "evictableNamespaces", "thresholds": "thresholds", "targetThresholds": "targetThresholds",
		"useDeviationThresholds": "useDeviationThresholds", "numberOfNodes": "numberOfNodes"},
}

// A count of consecutive observations is taken from the cluster as read.
var _ framework.Observer = lowNodeUtilization{}
