package scheduler

import "github.com/kube-rebalancer/rebalancer/cluster"

// NodeUnschedulable is the plugin's name in a profile.
const NodeUnschedulable = "NodeUnschedulable"

// ErrReasonUnschedulable is kube-scheduler's NodeUnschedulable reason.
const ErrReasonUnschedulable = "node(s) were unschedulable"

var reasonUnschedulable = []string{ErrReasonUnschedulable}

// nodeUnschedulable keeps pods off cordoned nodes (spec.unschedulable).
type nodeUnschedulable struct{}

var _ StaticFilterPlugin = nodeUnschedulable{}

func newNodeUnschedulable(any, Handle) (Plugin, error) { return nodeUnschedulable{}, nil }

func (nodeUnschedulable) Name() string { return NodeUnschedulable }

func (nodeUnschedulable) PreFilter(c *Cycle) PreFilterResult {
	return PreFilterResult{Skip: cluster.ToleratesUnschedulable(c.pod.Pod)}
}

func (nodeUnschedulable) Filter(c *Cycle, i int) []string {
	if c.t.unschedulable[i] {
		return reasonUnschedulable
	}
	return nil
}

func (nodeUnschedulable) AppendStaticChecks(c *Cycle, checks []NodeCheck) []NodeCheck {
	return append(checks, NodeCheck{Bits: c.t.unschedulable, Reason: reasonUnschedulable, Key: "unschedulable"})
}
