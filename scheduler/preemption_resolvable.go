package scheduler

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

// unresolvable reports whether filter f's rejection of node i is one
// preemption cannot resolve.
func unresolvable(f FilterPlugin, c *Cycle, i int, reasons []string) bool {
	if u, ok := f.(UnresolvableFilter); ok {
		return u.Unresolvable(c, i, reasons)
	}
	_, static := f.(StaticFilterPlugin)
	return static
}

// Unresolvable: a request larger than the node's whole allocatable amount
// fits no matter which pods leave; too many pods, or too little left, can
// be resolved.
func (f *nodeResourcesFit) Unresolvable(c *Cycle, i int, _ []string) bool {
	n := c.nodes[i]
	req := &c.pod.SpecRequests
	if req.MilliCPU > n.Allocatable.MilliCPU || req.Memory > n.Allocatable.Memory || req.EphemeralStorage > n.Allocatable.EphemeralStorage {
		return true
	}
	for _, name := range State[fitState](c, f.key).scalars {
		if req.Scalar[name] > n.Allocatable.Scalar[name] {
			return true
		}
	}
	return false
}

// Unresolvable: a node that lacks a domain label, or pods that a required
// affinity term needs, stays so; conflicts with pods that are there go with
// them.
func (p *interPodAffinity) Unresolvable(_ *Cycle, _ int, reasons []string) bool {
	return len(reasons) > 0 && reasons[0] == ErrReasonAffinityRulesNotMatch
}

// Unresolvable: a node without a constraint's topology key stays without
// it; skew changes as pods leave.
func (p *podTopologySpread) Unresolvable(_ *Cycle, _ int, reasons []string) bool {
	return len(reasons) > 0 && reasons[0] == ErrReasonNodeLabelNotMatch
}

// Unresolvable: kube-scheduler's VolumeBinding rejects with
// UnschedulableAndUnresolvable only: volumes, not pods, decide.
func (p *volumeBinding) Unresolvable(*Cycle, int, []string) bool { return true }

// Unresolvable: a volume's zone is the node's label's business.
func (p *volumeZone) Unresolvable(*Cycle, int, []string) bool { return true }
