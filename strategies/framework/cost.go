package framework

import (
	"cmp"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// Cheaper orders pods by the cost of moving them, the cheapest first: the
// lower controller.kubernetes.io/pod-deletion-cost (how an owner says
// which of its pods it would rather lose, as the ReplicaSet controller
// reads it), then the lower priority. Every strategy that chooses among
// pods asks it first, unless its own first key saves evictions (ByCost);
// its own order breaks the ties.
func Cheaper(a, b *cluster.Pod) int {
	if c := ByCost(a, b); c != 0 {
		return c
	}
	return cmp.Compare(a.Priority, b.Priority)
}

// ByCost orders pods by their pod-deletion-cost alone, for the strategies
// whose next key is the number of evictions (one pod that ends several
// conflicts before several that end one each), which priority must not
// override. Pods without the annotation cost 0 and tie.
func ByCost(a, b *cluster.Pod) int {
	return cmp.Compare(a.DeletionCost, b.DeletionCost)
}
