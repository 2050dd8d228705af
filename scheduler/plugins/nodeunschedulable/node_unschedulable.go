// Package nodeunschedulable is kube-scheduler's NodeUnschedulable plugin:
// pods stay off cordoned nodes unless they tolerate the cordon.
package nodeunschedulable

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// Name is the plugin's name in a profile.
const Name = "NodeUnschedulable"

// ErrReasonUnschedulable is kube-scheduler's NodeUnschedulable reason.
const ErrReasonUnschedulable = "node(s) were unschedulable"

var reasonUnschedulable = []string{ErrReasonUnschedulable}

// nodeUnschedulable keeps pods off cordoned nodes (spec.unschedulable).
type nodeUnschedulable struct {
	key framework.StateKey
}

var _ framework.StaticFilterPlugin = nodeUnschedulable{}

func New(_ any, h framework.Handle) (framework.Plugin, error) {
	return nodeUnschedulable{key: h.StateKey()}, nil
}

// familyState holds each node's spec.unschedulable, in a slice so that
// the check does not reach into every Node object.
type familyState struct {
	unschedulable framework.Lazy[[]bool]
}

func (p nodeUnschedulable) unschedulable(c *framework.Cycle) []bool {
	return *framework.FamilyState[familyState](c, p.key).unschedulable.Get(func() *[]bool {
		out := make([]bool, len(c.Nodes()))
		for i, n := range c.Nodes() {
			out[i] = n.Spec.Unschedulable
		}
		return &out
	})
}

func (nodeUnschedulable) Name() string { return Name }

func (nodeUnschedulable) PreFilter(c *framework.Cycle) framework.PreFilterResult {
	return framework.PreFilterResult{Skip: cluster.ToleratesUnschedulable(c.Pod().Pod)}
}

func (p nodeUnschedulable) Filter(c *framework.Cycle, i int) []string {
	if p.unschedulable(c)[i] {
		return reasonUnschedulable
	}
	return nil
}

func (p nodeUnschedulable) AppendStaticChecks(c *framework.Cycle, checks []framework.NodeCheck) []framework.NodeCheck {
	return append(checks, framework.NodeCheck{Bits: p.unschedulable(c), Reason: reasonUnschedulable, Key: "unschedulable"})
}
