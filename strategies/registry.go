package strategies

import (
	"github.com/kube-rebalancer/rebalancer/strategies/defragment"
	"github.com/kube-rebalancer/rebalancer/strategies/failedpods"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
	"github.com/kube-rebalancer/rebalancer/strategies/highnodeutilization"
	"github.com/kube-rebalancer/rebalancer/strategies/interpodantiaffinity"
	"github.com/kube-rebalancer/rebalancer/strategies/lownodeutilization"
	"github.com/kube-rebalancer/rebalancer/strategies/nodeaffinity"
	"github.com/kube-rebalancer/rebalancer/strategies/nodetaints"
	"github.com/kube-rebalancer/rebalancer/strategies/podlifetime"
	"github.com/kube-rebalancer/rebalancer/strategies/removeduplicates"
	"github.com/kube-rebalancer/rebalancer/strategies/toomanyrestarts"
	"github.com/kube-rebalancer/rebalancer/strategies/topologyspread"
)

// builtin lists rebalancer's strategies in the order they run: those that
// fix violations first, then the one that makes room for pending pods
// (on the cluster as the fixes leave it, before balancing spreads the
// free room again), then those that balance, so that balancing works
// on the cluster as the fixes leave it. Among the balancing ones, the
// finer-grained go first (one workload's replicas, then its spread over
// domains) and the node-level ones last, so that they see every workload
// where it will stay.
var builtin = []framework.Registration{
	nodetaints.Registration,
	nodeaffinity.Registration,
	interpodantiaffinity.Registration,
	toomanyrestarts.Registration,
	podlifetime.Registration,
	failedpods.Registration,
	defragment.Registration,
	removeduplicates.Registration,
	topologyspread.Registration,
	lownodeutilization.Registration,
	highnodeutilization.Registration,
}

// The built-in strategies are registered once, here, so that any program
// that imports this package (the planner does) can also load the policies
// that configure them.
func init() {
	for _, r := range builtin {
		if err := framework.Register(r); err != nil {
			panic(err)
		}
	}
}
