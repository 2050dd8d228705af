package scheduler

import (
	corev1 "k8s.io/api/core/v1"
)

// reasonNodeName is kube-scheduler's NodeName reason.
var reasonNodeName = []string{"node(s) didn't match the requested node name"}

// nodeNameFilter keeps a pod that names its node (spec.nodeName) off every
// other node.
//
// A pod that has been bound carries the node it was bound to in
// spec.nodeName too. The planner asks where such a pod's replacement would
// go, and the replacement, made from the controller's template, names no
// node; so spec.nodeName counts only for a pod that was never bound: no
// PodScheduled=True condition and a phase that is empty or Pending.
type nodeNameFilter struct{}

func (nodeNameFilter) name() string { return NodeName }

func (nodeNameFilter) prepare(c *cycle) prepared {
	c.nodeName = ""
	if pinnedNodeName(c.pod.Pod) {
		c.nodeName = c.pod.Spec.NodeName
	}
	return prepared{skip: c.nodeName == ""}
}

func (nodeNameFilter) filter(c *cycle, i int) []string {
	if c.nodes[i].Name != c.nodeName {
		return reasonNodeName
	}
	return nil
}

// pinnedNodeName reports whether the pod's spec.nodeName is a request to run
// there rather than the record of an earlier binding.
func pinnedNodeName(p *corev1.Pod) bool {
	if p.Spec.NodeName == "" {
		return false
	}
	if p.Status.Phase != "" && p.Status.Phase != corev1.PodPending {
		return false
	}
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionTrue {
			return false
		}
	}
	return true
}
