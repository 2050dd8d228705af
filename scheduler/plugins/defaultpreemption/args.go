// Package defaultpreemption is kube-scheduler's DefaultPreemption as a
// profile knows it: its name and arguments. Package scheduler/preemption
// runs the plugin (preemption.Decide), since preemption asks the engine's
// filters again on nodes emptied of their victims.
package defaultpreemption

import (
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// Name is the plugin's name in a profile.
const Name = "DefaultPreemption"

// Args decodes DefaultPreemptionArgs with kube-scheduler's defaults (10%
// of the potential nodes, at least 100) and validation.
var Args = framework.TypedArgs[configv1.DefaultPreemptionArgs](Name+"Args",
	func(a *configv1.DefaultPreemptionArgs) {
		if a.MinCandidateNodesPercentage == nil {
			a.MinCandidateNodesPercentage = new(int32(10))
		}
		if a.MinCandidateNodesAbsolute == nil {
			a.MinCandidateNodesAbsolute = new(int32(100))
		}
	},
	func(a *configv1.DefaultPreemptionArgs, _ string, bad func(field, format string, args ...any)) {
		pct, abs := *a.MinCandidateNodesPercentage, *a.MinCandidateNodesAbsolute
		if pct < 0 || pct > 100 {
			bad("minCandidateNodesPercentage", "%d is not in [0, 100]", pct)
		}
		if abs < 0 {
			bad("minCandidateNodesAbsolute", "%d is negative", abs)
		}
		if pct == 0 && abs == 0 {
			bad("minCandidateNodesPercentage", "cannot be zero at the same time as minCandidateNodesAbsolute")
		}
	})
