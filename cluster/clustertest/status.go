package clustertest

import (
	corev1 "k8s.io/api/core/v1"
)

// Restarts records restarts of the pod's container and leaves it Running.
func (b *PodBuilder) Restarts(n int32) *PodBuilder {
	cs := b.containerStatus()
	cs.RestartCount = n
	if cs.State.Waiting == nil && cs.State.Terminated == nil {
		cs.State.Running = &corev1.ContainerStateRunning{}
	}
	return b
}

// Waiting puts the pod's container in a waiting state with a reason, such
// as CrashLoopBackOff, and marks the pod not Ready.
func (b *PodBuilder) Waiting(reason string) *PodBuilder {
	cs := b.containerStatus()
	cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}
	cs.Ready = false
	return b.NotReady()
}

// InitRestarts records an init container with restarts.
func (b *PodBuilder) InitRestarts(n int32) *PodBuilder {
	if len(b.p.Spec.InitContainers) == 0 {
		b.p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "registry.example/init:1"}}
	}
	b.p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "init", RestartCount: n,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed"}}}}
	return b
}

// Failed puts the pod in the Failed phase with a status reason (may be
// empty) and its container terminated with a reason and exit code.
func (b *PodBuilder) Failed(podReason, containerReason string, exitCode int32) *PodBuilder {
	b.p.Status.Phase = corev1.PodFailed
	b.p.Status.Reason = podReason
	cs := b.containerStatus()
	cs.Ready = false
	cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: containerReason, ExitCode: exitCode}}
	return b.NotReady()
}

func (b *PodBuilder) containerStatus() *corev1.ContainerStatus {
	if len(b.p.Status.ContainerStatuses) == 0 {
		c := b.p.Spec.Containers[0]
		b.p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: c.Name, Image: c.Image, Ready: true}}
	}
	return &b.p.Status.ContainerStatuses[0]
}

// Pending makes the pod one waiting for the scheduler: phase Pending and no
// conditions. A node set with On is then a request to run there (a pod
// that names its node), not a binding.
func (b *PodBuilder) Pending() *PodBuilder {
	b.p.Status = corev1.PodStatus{Phase: corev1.PodPending}
	return b
}

// Scheduled records the PodScheduled condition a scheduler sets when it
// binds the pod, which tells a bound pending pod from one that asks for its
// node by name.
func (b *PodBuilder) Scheduled() *PodBuilder {
	b.p.Status.Conditions = append(b.p.Status.Conditions, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue})
	return b
}

// Unschedulable makes the pod one the scheduler tried and found no node
// for: unbound, phase Pending, PodScheduled False with reason
// Unschedulable, as kube-scheduler records it.
func (b *PodBuilder) Unschedulable() *PodBuilder {
	b.p.Spec.NodeName = ""
	b.p.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
		Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
		Message: "0/3 nodes are available: 3 Insufficient cpu."}}}
	return b
}

// SchedulingGated holds the pod back from scheduling with gates: unbound,
// phase Pending, PodScheduled False with reason SchedulingGated, as the API
// server records it.
func (b *PodBuilder) SchedulingGated(gates ...string) *PodBuilder {
	b.p.Spec.NodeName = ""
	for _, g := range gates {
		b.p.Spec.SchedulingGates = append(b.p.Spec.SchedulingGates, corev1.PodSchedulingGate{Name: g})
	}
	b.p.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
		Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonSchedulingGated,
		Message: "Scheduling is blocked due to non-empty scheduling gates"}}}
	return b
}
