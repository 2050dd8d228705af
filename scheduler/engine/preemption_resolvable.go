package engine

import "github.com/kube-rebalancer/rebalancer/scheduler/framework"

// unresolvable reports whether filter f's rejection of node i is one
// preemption cannot resolve (see UnresolvableFilter).
func unresolvable(f framework.FilterPlugin, c *framework.Cycle, i int, reasons []string) bool {
	if u, ok := f.(framework.UnresolvableFilter); ok {
		return u.Unresolvable(c, i, reasons)
	}
	_, static := f.(framework.StaticFilterPlugin)
	return static
}
