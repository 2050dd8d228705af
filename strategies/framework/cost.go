package framework

import (
	"cmp"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// ByCost orders pods by their controller.kubernetes.io/pod-deletion-cost,
// cheapest first: the annotation is how an owner says which of its pods it
// would rather lose, and the ReplicaSet controller scales down by it too.
// Every strategy that chooses among pods asks it first; pods without the
// annotation cost 0 and tie, so that their order is the strategy's own.
func ByCost(a, b *cluster.Pod) int {
	return cmp.Compare(a.DeletionCost, b.DeletionCost)
}

// Cheaper orders pods by cost, then by priority, the lowest first: for the
// strategies whose own order starts with priority.
func Cheaper(a, b *cluster.Pod) int {
	if c := ByCost(a, b); c != 0 {
		return c
	}
	return cmp.Compare(a.Priority, b.Priority)
}
