package app

import (
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/policy"
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
