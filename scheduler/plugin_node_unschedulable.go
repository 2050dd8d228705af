package scheduler

import (
	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// reasonUnschedulable is kube-scheduler's NodeUnschedulable reason.
var reasonUnschedulable = []string{"node(s) were unschedulable"}

// cordonTaint is the taint a cordoned node carries; a pod that tolerates it
// may land on the cordoned node, as DaemonSet pods do.
var cordonTaint = corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}

// nodeUnschedulable keeps pods off cordoned nodes (spec.unschedulable).
type nodeUnschedulable struct{}

func (nodeUnschedulable) name() string { return NodeUnschedulable }

func (nodeUnschedulable) prepare(c *cycle) prepared {
	c.tolerateCordon = corev1helpers.TolerationsTolerateTaint(logger, c.pod.Spec.Tolerations, &cordonTaint, false)
	return prepared{skip: c.tolerateCordon}
}

func (nodeUnschedulable) filter(c *cycle, i int) []string {
	if c.t.unschedulable[i] {
		return reasonUnschedulable
	}
	return nil
}
