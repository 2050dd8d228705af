package cluster

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Small constructors that keep the tables below readable. They stay here
// rather than in clustertest because these tests are internal to cluster
// and clustertest imports cluster: using it would be an import cycle.

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

func replicaSet(ns, name, deployment string) appsv1.ReplicaSet {
	rs := appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if deployment != "" {
		yes := true
		rs.OwnerReferences = []metav1.OwnerReference{{Kind: "Deployment", Name: deployment, Controller: &yes, APIVersion: "apps/v1"}}
	}
	return rs
}
