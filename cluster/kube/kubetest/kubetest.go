// Package kubetest gives the tests of the packages at the API edge a fake
// API server holding a cluster built with package clustertest, with the
// subresources client-go's fake does not implement: a binding sets the pod's
// node, an eviction deletes the pod.
package kubetest

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// Clientset returns a fake API server holding the objects.
func Clientset(objs cluster.Objects) *fake.Clientset {
	var rt []runtime.Object
	for i := range objs.Nodes {
		rt = append(rt, &objs.Nodes[i])
	}
	for i := range objs.Pods {
		rt = append(rt, &objs.Pods[i])
	}
	for i := range objs.PDBs {
		rt = append(rt, &objs.PDBs[i])
	}
	for i := range objs.Namespaces {
		rt = append(rt, &objs.Namespaces[i])
	}
	for i := range objs.PriorityClasses {
		rt = append(rt, &objs.PriorityClasses[i])
	}
	for i := range objs.ReplicaSets {
		rt = append(rt, &objs.ReplicaSets[i])
	}
	for i := range objs.StatefulSets {
		rt = append(rt, &objs.StatefulSets[i])
	}
	for i := range objs.Deployments {
		rt = append(rt, &objs.Deployments[i])
	}
	for i := range objs.Jobs {
		rt = append(rt, &objs.Jobs[i])
	}
	for i := range objs.PersistentVolumes {
		rt = append(rt, &objs.PersistentVolumes[i])
	}
	for i := range objs.PersistentVolumeClaims {
		rt = append(rt, &objs.PersistentVolumeClaims[i])
	}
	for i := range objs.StorageClasses {
		rt = append(rt, &objs.StorageClasses[i])
	}
	for i := range objs.CSINodes {
		rt = append(rt, &objs.CSINodes[i])
	}
	for i := range objs.StateConfigMaps {
		rt = append(rt, &objs.StateConfigMaps[i])
	}
	return fake.NewClientset(rt...)
}

// BindingsSetNode makes the client's pods/binding subresource bind the pod:
// its spec.nodeName becomes the binding's target.
func BindingsSetNode(client *fake.Clientset) {
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "binding" {
			return false, nil, nil
		}
		b := a.(k8stesting.CreateAction).GetObject().(*corev1.Binding)
		obj, err := client.Tracker().Get(a.GetResource(), b.Namespace, b.Name)
		if err != nil {
			return true, nil, err
		}
		pod := obj.(*corev1.Pod).DeepCopy()
		pod.Spec.NodeName = b.Target.Name
		return true, nil, client.Tracker().Update(a.GetResource(), pod, b.Namespace)
	})
}

// EvictionsDeletePods makes the client's pods/eviction subresource delete
// the pod at once, as an eviction without a grace period does.
func EvictionsDeletePods(client *fake.Clientset) {
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "eviction" {
			return false, nil, nil
		}
		ev := a.(k8stesting.CreateAction).GetObject().(*policyv1.Eviction)
		return true, nil, client.Tracker().Delete(a.GetResource(), ev.Namespace, ev.Name)
	})
}

// Imbalanced returns a fake API server holding a cluster that any balancing
// policy wants to change: eight replicas of Deployment shop/web on node
// "hot" (400m of its 4 CPUs each), and an empty node "idle". Evictions
// delete the pod.
func Imbalanced() *fake.Clientset {
	objs := clustertest.Objects(clustertest.Node("hot"), clustertest.Node("idle"), clustertest.DeploymentReplicaSet("shop", "web"))
	for i := range 8 {
		objs.Pods = append(objs.Pods, clustertest.Pod("shop", fmt.Sprintf("web-%d", i)).On("hot").Requests("400m", "").Deployment("web").Obj())
	}
	client := Clientset(objs)
	EvictionsDeletePods(client)
	return client
}
