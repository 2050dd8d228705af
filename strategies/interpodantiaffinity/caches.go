package interpodantiaffinity

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// caches is what the strategy keeps for the rest of a cycle: each pod's
// parsed anti-affinity terms, shared by the pods with the same terms.
type caches struct {
	antiTerms   map[string][]antiTerm
	antiTermsOf cluster.PodTable[[]antiTerm]
	// lastAntiTerms is the answer for the last pod asked about, by its
	// namespace and cluster.Pod.PlacementSpecID: a workload's pods come
	// in a row.
	lastAntiTerms struct {
		namespace string
		spec      uint64
		parsed    []antiTerm
	}
}

var cycleCaches = framework.NewSlot[caches]()
