package app

import (
	"strings"

	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// loadPolicy loads --policy, or the embedded default policy when it is empty.
func loadPolicy(file string) (*policy.Policy, error) {
	if file == "" {
		klog.V(1).InfoS("No --policy given: using the default policy (see `rebalancer plan --help`)")
		return policy.Default(), nil
	}
	p, err := policy.LoadFile(file)
	return p, fileError("--policy", file, err)
}

// checkPolicy runs every check of a loaded policy that needs no cluster,
// and returns the scheduler engines a plan with it simulates. validate runs
// it, and plan and run run it before they read or change anything, so that
// a policy validate accepts is one they accept: only what the cluster
// shows (a PriorityClass it lacks) is left for them to refuse.
func checkPolicy(pol *policy.Policy, plugins framework.Registry) (engine.Placer, error) {
	if err := pol.CheckPriorityClasses(reservedPriorityClass); err != nil {
		return nil, err
	}
	return newPlacer(pol, plugins)
}

// reservedPriorityClass refuses a class name the API server never admits:
// it reserves the "system-" prefix for the classes it creates itself.
func reservedPriorityClass(name string) string {
	if strings.HasPrefix(name, "system-") && !cluster.IsBuiltinPriorityClass(name) {
		return "is no PriorityClass: the API server reserves the system- prefix for system-cluster-critical and system-node-critical"
	}
	return ""
}
