package scheduler

import (
	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// NodeUnschedulable is the plugin's name in a profile.
const NodeUnschedulable = "NodeUnschedulable"

// ErrReasonUnschedulable is kube-scheduler's NodeUnschedulable reason.
const ErrReasonUnschedulable = "node(s) were unschedulable"

var reasonUnschedulable = []string{ErrReasonUnschedulable}

// cordonTaint is the taint a cordoned node carries; a pod that tolerates it
// may land on the cordoned node, as DaemonSet pods do.
var cordonTaint = corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}

// nodeUnschedulable keeps pods off cordoned nodes (spec.unschedulable).
type nodeUnschedulable struct{}

var _ StaticFilterPlugin = nodeUnschedulable{}

func newNodeUnschedulable(any, Handle) (Plugin, error) { return nodeUnschedulable{}, nil }

func (nodeUnschedulable) Name() string { return NodeUnschedulable }

func (nodeUnschedulable) PreFilter(c *Cycle) PreFilterResult {
	return PreFilterResult{Skip: corev1helpers.TolerationsTolerateTaint(logger, c.pod.Spec.Tolerations, &cordonTaint, false)}
}

func (nodeUnschedulable) Filter(c *Cycle, i int) []string {
	if c.t.unschedulable[i] {
		return reasonUnschedulable
	}
	return nil
}

func (nodeUnschedulable) AppendStaticChecks(c *Cycle, checks []NodeCheck) []NodeCheck {
	return append(checks, NodeCheck{Bits: c.t.unschedulable})
}
