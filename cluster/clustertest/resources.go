package clustertest

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Image records an image of the given size held on the node, under one or
// more names.
func (b *NodeBuilder) Image(sizeBytes int64, names ...string) *NodeBuilder {
	b.n.Status.Images = append(b.n.Status.Images, corev1.ContainerImage{Names: names, SizeBytes: sizeBytes})
	return b
}

// HostPort opens a host port on the pod's container, mapped to the same
// container port; protocol and hostIP may be empty, as in a manifest.
func (b *PodBuilder) HostPort(port int32, protocol corev1.Protocol, hostIP string) *PodBuilder {
	c := &b.p.Spec.Containers[0]
	c.Ports = append(c.Ports, corev1.ContainerPort{ContainerPort: port, HostPort: port, Protocol: protocol, HostIP: hostIP})
	return b
}

// InitContainer adds an init container that runs to completion before the
// app starts.
func (b *PodBuilder) InitContainer(c corev1.Container) *PodBuilder {
	b.p.Spec.InitContainers = append(b.p.Spec.InitContainers, c)
	return b
}

// Sidecar adds an init container with restartPolicy Always, which keeps
// running (and holding its requests and ports) beside the app.
func (b *PodBuilder) Sidecar(c corev1.Container) *PodBuilder {
	always := corev1.ContainerRestartPolicyAlways
	c.RestartPolicy = &always
	return b.InitContainer(c)
}

// Overhead sets one resource of spec.overhead, what the RuntimeClass adds
// to the pod's requests.
func (b *PodBuilder) Overhead(name corev1.ResourceName, q string) *PodBuilder {
	if b.p.Spec.Overhead == nil {
		b.p.Spec.Overhead = corev1.ResourceList{}
	}
	b.p.Spec.Overhead[name] = resource.MustParse(q)
	return b
}

// PodRequests sets the pod-level CPU and memory requests (spec.resources),
// which take the place of the sum of the containers'; "" leaves one out.
func (b *PodBuilder) PodRequests(cpu, memory string) *PodBuilder {
	r := corev1.ResourceList{}
	if cpu != "" {
		r[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		r[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	b.p.Spec.Resources = &corev1.ResourceRequirements{Requests: r}
	return b
}

// AllocatableQuantity sets any allocatable resource to a quantity made
// with resource.NewQuantity or NewMilliQuantity, which keeps the format a
// generator chose where a parsed string would not.
func (b *NodeBuilder) AllocatableQuantity(name corev1.ResourceName, q resource.Quantity) *NodeBuilder {
	b.n.Status.Allocatable[name] = q
	return b
}

// RequestQuantity sets one request of the container to a quantity made
// with resource.NewQuantity or NewMilliQuantity.
func (b *PodBuilder) RequestQuantity(name corev1.ResourceName, q resource.Quantity) *PodBuilder {
	if b.p.Spec.Containers[0].Resources.Requests == nil {
		b.p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{}
	}
	b.p.Spec.Containers[0].Resources.Requests[name] = q
	return b
}
