package framework

// UnresolvableFilter is implemented by a filter plugin some of whose
// rejections no preemption can resolve: kube-scheduler's
// UnschedulableAndUnresolvable status, as opposed to Unschedulable.
// DefaultPreemption looks for victims only on nodes that every filter
// turned down as resolvable. A filter plugin that does not implement it
// is taken as resolvable, except a StaticFilterPlugin: what a node is does
// not change when pods leave it.
type UnresolvableFilter interface {
	FilterPlugin
	// Unresolvable reports whether the reasons Filter gave for node i of
	// c.Nodes() would stand on the node emptied of every pod.
	Unresolvable(c *Cycle, i int, reasons []string) bool
}
