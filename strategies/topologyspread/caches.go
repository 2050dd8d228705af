package topologyspread

import (
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// caches is what the strategy keeps for the rest of a cycle: each pod's
// constraints as counted (spreadSpec), shared by the pods with the same
// spec, and the nodes each constraint counts.
type caches struct {
	spreadSpecs map[string]*spreadSpec
	spreadNodes map[spreadNodesKey]*spreadNodes
	specOf      cluster.PodTable[*spreadSpec]
	// lastSpread is the answer for the last pod asked about, by its
	// namespace and cluster.Pod.SchedulingSpecID: a workload's pods come
	// in a row.
	lastSpread struct {
		namespace string
		spec      uint64
		args      *Args
		keyed     []labels.Set
		counted   *spreadSpec
	}
}

var cycleCaches = framework.NewSlot[caches]()
