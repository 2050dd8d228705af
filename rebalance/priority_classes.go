package rebalance

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
)

// CheckPriorityClasses refuses a policy whose priorityThreshold names a
// PriorityClass that the snapshot, read from where, does not hold: falling
// back to another threshold would make evictable the pods the policy meant
// to protect. The error is the policy's (*policy.Error), so that the
// command exits 2 before it evicts anything.
func CheckPriorityClasses(pol *policy.Policy, snap *cluster.Snapshot, where string) error {
	return pol.CheckPriorityClasses(func(name string) string {
		if _, ok := snap.PriorityClassValue(name); ok {
			return ""
		}
		return "names no PriorityClass in " + where + "; create the class, name another, or give the threshold as value"
	})
}
