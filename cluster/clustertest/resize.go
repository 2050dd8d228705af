package clustertest

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// An in-place resize changes the container's requests in the spec; the
// kubelet then reports in the pod's status what it admitted
// (containerStatuses[].allocatedResources), what the runtime applied
// (containerStatuses[].resources) and, while the resize waits, a
// PodResizePending condition (reason Deferred or Infeasible) or, while it is
// applied, PodResizeInProgress.

// Allocated records the CPU and memory the kubelet admitted for the pod's
// container; "" leaves one out.
func (b *PodBuilder) Allocated(cpu, memory string) *PodBuilder {
	cs := b.containerStatus()
	cs.AllocatedResources = resourceList(cpu, memory)
	return b
}

// Actual records the CPU and memory requests the runtime applies to the
// pod's container; "" leaves one out.
func (b *PodBuilder) Actual(cpu, memory string) *PodBuilder {
	cs := b.containerStatus()
	cs.Resources = &corev1.ResourceRequirements{Requests: resourceList(cpu, memory)}
	return b
}

// ResizePending sets the PodResizePending condition with its reason:
// corev1.PodReasonDeferred (the node may have room later) or
// corev1.PodReasonInfeasible (the node can never grant it).
func (b *PodBuilder) ResizePending(reason string) *PodBuilder {
	b.p.Status.Conditions = append(b.p.Status.Conditions, corev1.PodCondition{
		Type: corev1.PodResizePending, Status: corev1.ConditionTrue, Reason: reason,
	})
	return b
}

// ResizeInProgress sets the PodResizeInProgress condition: the kubelet
// admitted the resize and is applying it.
func (b *PodBuilder) ResizeInProgress() *PodBuilder {
	b.p.Status.Conditions = append(b.p.Status.Conditions, corev1.PodCondition{
		Type: corev1.PodResizeInProgress, Status: corev1.ConditionTrue,
	})
	return b
}

func resourceList(cpu, memory string) corev1.ResourceList {
	r := corev1.ResourceList{}
	if cpu != "" {
		r[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		r[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	return r
}
