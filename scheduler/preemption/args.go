package preemption

import (
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
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

// argsOf returns the DefaultPreemptionArgs of e's profile. The profile
// was validated when the engine was built, so they decode.
func argsOf(e *engine.Engine) preemptionArgs {
	p := e.Profile()
	a, err := defaultpreemption.Args(p.RawArgs(defaultpreemption.Name), "pluginConfig")
	if err != nil {
		return preemptionArgs{percentage: 10, absolute: 100}
	}
	args := a.(*configv1.DefaultPreemptionArgs)
	return preemptionArgs{percentage: *args.MinCandidateNodesPercentage, absolute: *args.MinCandidateNodesAbsolute}
}
