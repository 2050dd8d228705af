package schedulerd

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// Which cluster events bring unschedulable pods back to the queue: those
// that may make a pod fit that did not, in the spirit of kube-scheduler's
// queueing hints but coarser (an event moves every pod it may help, not
// only those the failing plugin names):
//
//   - a node added, or changed so that it may take more: its allocatable,
//     labels or taints changed, it was uncordoned, or its Ready condition
//     changed;
//   - a pod that held a node's resources deleted, finished, or resized
//     smaller, and a binding of this scheduler that failed (the node it
//     reserved is free again);
//   - a pod bound to a node, or its labels changed: pods whose inter-pod
//     affinity it may now satisfy (pods with required pod affinity);
//   - a pending pod's own spec or labels changed (see schedulingInputChanged);
//   - a claim, PersistentVolume or StorageClass added or changed: pods that
//     use claims; a CSINode added or changed: pods whose volumes a driver
//     may attach (see volumes.go).
//
// Anything else (namespaces' labels) is caught by the periodic flush of the
// unschedulable pool after five minutes, as in kube-scheduler.

// nodeMayTakeMore reports whether a node's update may make a pod fit.
func nodeMayTakeMore(old, n *corev1.Node) bool {
	return !equality.Semantic.DeepEqual(old.Status.Allocatable, n.Status.Allocatable) ||
		!maps.Equal(old.Labels, n.Labels) ||
		!equality.Semantic.DeepEqual(old.Spec.Taints, n.Spec.Taints) ||
		old.Spec.Unschedulable && !n.Spec.Unschedulable ||
		readyStatus(old) != readyStatus(n)
}

func readyStatus(n *corev1.Node) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return corev1.ConditionUnknown
}

// assignedPodFreed reports whether an update of a pod on a node gave back
// some of what it held.
func assignedPodFreed(old, p *corev1.Pod) bool {
	if finished(p) && !finished(old) {
		return true
	}
	if p.DeletionTimestamp != nil && old.DeletionTimestamp == nil {
		return false // still holds its resources until it is gone
	}
	return !equality.Semantic.DeepEqual(old.Spec.Containers, p.Spec.Containers) ||
		!equality.Semantic.DeepEqual(old.Status.ContainerStatuses, p.Status.ContainerStatuses) && resized(old, p)
}

// resized reports whether the resources the kubelet reports changed.
func resized(old, p *corev1.Pod) bool {
	if len(old.Status.ContainerStatuses) != len(p.Status.ContainerStatuses) {
		return false
	}
	for i := range p.Status.ContainerStatuses {
		if !equality.Semantic.DeepEqual(old.Status.ContainerStatuses[i].Resources, p.Status.ContainerStatuses[i].Resources) {
			return true
		}
	}
	return false
}

func finished(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// hasRequiredPodAffinity reports whether the pod needs other pods in a
// domain: a pod bound or relabeled elsewhere may be what it waits for.
func hasRequiredPodAffinity(p *corev1.Pod) bool {
	a := p.Spec.Affinity
	return a != nil && a.PodAffinity != nil && len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0
}

// schedulingInputChanged reports whether a pending pod's update changed
// anything a scheduling attempt reads, as kube-scheduler's isPodUpdated:
// the object without its resourceVersion, generation, managed fields and
// status.
func schedulingInputChanged(old, p *corev1.Pod) bool {
	strip := func(p *corev1.Pod) *corev1.Pod {
		c := p.DeepCopy()
		c.ResourceVersion, c.Generation, c.ManagedFields = "", 0, nil
		c.Status = corev1.PodStatus{}
		return c
	}
	return !equality.Semantic.DeepEqual(strip(old), strip(p))
}
