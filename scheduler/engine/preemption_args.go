package engine

import (
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/defaultpreemption"
)

// preemptionArgs is how many candidates the dry run looks for.
type preemptionArgs struct {
	percentage, absolute int32
}

// numCandidates is kube-scheduler's calculateNumCandidates: a share of the
// potential nodes, at least the absolute number, at most all of them.
func (a preemptionArgs) numCandidates(numNodes int) int {
	n := numNodes * int(a.percentage) / 100
	n = max(n, int(a.absolute))
	return min(n, numNodes)
}

// postFilterPlugins returns the profile's PostFilter plugins in the order
// they run.
func (e *Engine) postFilterPlugins() []string {
	return e.profile.PointPlugins(framework.PointPostFilter)
}

// preemptionArgs are the profile's DefaultPreemptionArgs. The profile was
// validated when the engine was built, so they decode.
func (e *Engine) preemptionArgs() preemptionArgs {
	a, err := defaultpreemption.Args(e.profile.RawArgs(defaultpreemption.Name), "pluginConfig")
	if err != nil {
		return preemptionArgs{percentage: 10, absolute: 100}
	}
	args := a.(*configv1.DefaultPreemptionArgs)
	return preemptionArgs{percentage: *args.MinCandidateNodesPercentage, absolute: *args.MinCandidateNodesAbsolute}
}
