package cluster

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Small constructors for the tests that stay internal to cluster because
// they reach unexported names (newPod, qosClass) to check a pod's requests,
// QoS class and kinds without a snapshot around it. clustertest imports
// cluster, so these tests cannot use it: that would be an import cycle.
// Tests that need only the exported API are in package cluster_test and
// build their objects with clustertest.

func node(name, cpu, memory string) corev1.Node {
	return corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(cpu),
			corev1.ResourceMemory: resource.MustParse(memory),
			corev1.ResourcePods:   resource.MustParse("110"),
		}},
	}
}

func container(name, cpu, memory string) corev1.Container {
	c := corev1.Container{Name: name, Image: "registry.example/" + name}
	if cpu != "" || memory != "" {
		c.Resources.Requests = corev1.ResourceList{}
	}
	if cpu != "" {
		c.Resources.Requests[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		c.Resources.Requests[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	return c
}

func pod(ns, name, nodeName string, containers ...corev1.Container) corev1.Pod {
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(ns + "-" + name)},
		Spec:       corev1.PodSpec{NodeName: nodeName, Containers: containers},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
}

func ownedBy(p corev1.Pod, kind, name string) corev1.Pod {
	yes := true
	p.OwnerReferences = []metav1.OwnerReference{{Kind: kind, Name: name, Controller: &yes, APIVersion: "apps/v1"}}
	return p
}
