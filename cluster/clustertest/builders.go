// Package clustertest builds nodes, pods and snapshots for tests, so that a
// test table reads like the situation it describes:
//
//	clustertest.Node("node-a").CPU("4").Zone("zone-a").Obj()
//	clustertest.Pod("shop", "web-1").On("node-a").Requests("500m", "256Mi").Deployment("web").Obj()
package clustertest

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// Now is the time test snapshots are taken at; Created is when test objects
// were made, a day earlier.
var (
	Now     = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	Created = Now.Add(-24 * time.Hour)
)

// NodeBuilder builds a Ready node with 4 CPUs, 16Gi of memory and room for
// 110 pods unless told otherwise.
type NodeBuilder struct{ n corev1.Node }

// Node starts a node.
func Node(name string) *NodeBuilder {
	b := &NodeBuilder{n: corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("node-" + name), CreationTimestamp: metav1.NewTime(Created),
			Labels: map[string]string{corev1.LabelHostname: name}},
		Status: corev1.NodeStatus{
			Allocatable: corev1.ResourceList{},
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		},
	}}
	return b.CPU("4").Memory("16Gi").Pods(110)
}

// CPU sets allocatable CPU.
func (b *NodeBuilder) CPU(q string) *NodeBuilder { return b.Allocatable(corev1.ResourceCPU, q) }

// Memory sets allocatable memory.
func (b *NodeBuilder) Memory(q string) *NodeBuilder { return b.Allocatable(corev1.ResourceMemory, q) }

// Pods sets how many pods the node takes.
func (b *NodeBuilder) Pods(n int) *NodeBuilder {
	b.n.Status.Allocatable[corev1.ResourcePods] = *resource.NewQuantity(int64(n), resource.DecimalSI)
	return b
}

// Allocatable sets any allocatable resource.
func (b *NodeBuilder) Allocatable(name corev1.ResourceName, q string) *NodeBuilder {
	b.n.Status.Allocatable[name] = resource.MustParse(q)
	return b
}

// Zone sets topology.kubernetes.io/zone.
func (b *NodeBuilder) Zone(z string) *NodeBuilder { return b.Label(corev1.LabelTopologyZone, z) }

// Annotate sets a node annotation.
func (b *NodeBuilder) Annotate(k, v string) *NodeBuilder {
	if b.n.Annotations == nil {
		b.n.Annotations = map[string]string{}
	}
	b.n.Annotations[k] = v
	return b
}

// Label sets a label.
func (b *NodeBuilder) Label(k, v string) *NodeBuilder { b.n.Labels[k] = v; return b }

// Unlabel removes a label.
func (b *NodeBuilder) Unlabel(k string) *NodeBuilder { delete(b.n.Labels, k); return b }

// Taint adds a taint; value may be empty.
func (b *NodeBuilder) Taint(key, value string, effect corev1.TaintEffect) *NodeBuilder {
	b.n.Spec.Taints = append(b.n.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	return b
}

// Cordoned marks the node unschedulable, with the taint the node lifecycle
// controller adds for it.
func (b *NodeBuilder) Cordoned() *NodeBuilder {
	b.n.Spec.Unschedulable = true
	return b.Taint(corev1.TaintNodeUnschedulable, "", corev1.TaintEffectNoSchedule)
}

// Unschedulable sets spec.unschedulable alone, as a hand-written node would
// be, without the taint Cordoned adds.
func (b *NodeBuilder) Unschedulable() *NodeBuilder { b.n.Spec.Unschedulable = true; return b }

// NotReady marks the node's Ready condition false.
func (b *NodeBuilder) NotReady() *NodeBuilder {
	b.n.Status.Conditions[0].Status = corev1.ConditionFalse
	return b
}

// Obj returns the node.
func (b *NodeBuilder) Obj() corev1.Node { return b.n }

// PodBuilder builds a Running, Ready pod with one container.
type PodBuilder struct{ p corev1.Pod }

// Pod starts a pod.
func Pod(namespace, name string) *PodBuilder {
	return &PodBuilder{p: corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: types.UID(namespace + "/" + name),
			CreationTimestamp: metav1.NewTime(Created), Labels: map[string]string{}},
		Spec: corev1.PodSpec{
			SchedulerName: corev1.DefaultSchedulerName,
			Containers:    []corev1.Container{{Name: "app", Image: "registry.example/app:1"}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
	}}
}

// On binds the pod to a node.
func (b *PodBuilder) On(node string) *PodBuilder { b.p.Spec.NodeName = node; return b }

// Requests sets the container's CPU and memory requests; "" leaves one out.
func (b *PodBuilder) Requests(cpu, memory string) *PodBuilder {
	r := corev1.ResourceList{}
	if cpu != "" {
		r[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		r[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	b.p.Spec.Containers[0].Resources.Requests = r
	return b
}

// Request sets one more request of the container.
func (b *PodBuilder) Request(name corev1.ResourceName, q string) *PodBuilder {
	if b.p.Spec.Containers[0].Resources.Requests == nil {
		b.p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{}
	}
	b.p.Spec.Containers[0].Resources.Requests[name] = resource.MustParse(q)
	return b
}

// Guaranteed sets limits equal to the requests.
func (b *PodBuilder) Guaranteed() *PodBuilder {
	b.p.Spec.Containers[0].Resources.Limits = b.p.Spec.Containers[0].Resources.Requests.DeepCopy()
	b.p.Status.QOSClass = corev1.PodQOSGuaranteed
	return b
}

// Image sets the container's image.
func (b *PodBuilder) Image(img string) *PodBuilder { b.p.Spec.Containers[0].Image = img; return b }

// Label sets a label.
func (b *PodBuilder) Label(k, v string) *PodBuilder { b.p.Labels[k] = v; return b }

// Annotate sets an annotation.
func (b *PodBuilder) Annotate(k, v string) *PodBuilder {
	if b.p.Annotations == nil {
		b.p.Annotations = map[string]string{}
	}
	b.p.Annotations[k] = v
	return b
}

// Priority sets spec.priority.
func (b *PodBuilder) Priority(v int32) *PodBuilder { b.p.Spec.Priority = &v; return b }

// PriorityClass sets spec.priorityClassName (and leaves spec.priority to the
// snapshot, as an object written by hand would).
func (b *PodBuilder) PriorityClass(name string) *PodBuilder {
	b.p.Spec.PriorityClassName = name
	return b
}

// CreatedAgo sets the creation time relative to Now.
func (b *PodBuilder) CreatedAgo(d time.Duration) *PodBuilder {
	b.p.CreationTimestamp = metav1.NewTime(Now.Add(-d))
	return b
}

// Phase sets status.phase.
func (b *PodBuilder) Phase(p corev1.PodPhase) *PodBuilder { b.p.Status.Phase = p; return b }

// Terminating marks the pod as being deleted, 10 seconds ago with a grace
// period of 30 seconds: what the API server records when it accepts an
// eviction, until the kubelet has stopped the containers.
func (b *PodBuilder) Terminating() *PodBuilder {
	at := metav1.NewTime(Now.Add(-10 * time.Second))
	grace := int64(30)
	b.p.DeletionTimestamp, b.p.DeletionGracePeriodSeconds = &at, &grace
	return b
}

// NotReady marks the pod's Ready condition false.
func (b *PodBuilder) NotReady() *PodBuilder {
	b.p.Status.Conditions[0].Status = corev1.ConditionFalse
	return b
}

// Deployment makes the pod one of a Deployment's, through the ReplicaSet
// "<name>-rs"; add DeploymentReplicaSet(ns, name) to the snapshot.
func (b *PodBuilder) Deployment(name string) *PodBuilder {
	return b.Label("app", name).OwnedBy("ReplicaSet", name+"-rs")
}

// OwnedBy sets the pod's controller.
func (b *PodBuilder) OwnedBy(kind, name string) *PodBuilder {
	yes := true
	apiVersion := "apps/v1"
	if kind == "Job" {
		apiVersion = "batch/v1"
	}
	b.p.OwnerReferences = []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, Controller: &yes,
		UID: types.UID(b.p.Namespace + "/" + kind + "/" + name)}}
	return b
}

// Volume adds a volume.
func (b *PodBuilder) Volume(v corev1.Volume) *PodBuilder {
	b.p.Spec.Volumes = append(b.p.Spec.Volumes, v)
	return b
}

// Edit applies any change the builder has no method for.
func (b *PodBuilder) Edit(f func(*corev1.Pod)) *PodBuilder { f(&b.p); return b }

// Obj returns the pod.
func (b *PodBuilder) Obj() corev1.Pod { return b.p }

// DeploymentReplicaSet is the ReplicaSet "<name>-rs" that Deployment(name)
// pods belong to, owned by the Deployment.
func DeploymentReplicaSet(namespace, name string) appsv1.ReplicaSet {
	yes := true
	return appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name + "-rs",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: name, Controller: &yes}}}}
}

// ScaledReplicaSet is DeploymentReplicaSet(namespace, name) with
// spec.replicas set.
func ScaledReplicaSet(namespace, name string, replicas int32) appsv1.ReplicaSet {
	rs := DeploymentReplicaSet(namespace, name)
	rs.Spec.Replicas = &replicas
	return rs
}

// Deployment is a Deployment whose pods are those built with
// Deployment(name), through DeploymentReplicaSet(namespace, name); strategy
// is its spec.strategy (the zero value: the API server's default).
func Deployment(namespace, name string, replicas int32, strategy appsv1.DeploymentStrategy) appsv1.Deployment {
	return appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Strategy: strategy,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}}}
}

// StatefulSet is a StatefulSet whose pods are those built with
// OwnedBy("StatefulSet", name).
func StatefulSet(namespace, name string, replicas int32) appsv1.StatefulSet {
	return appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: appsv1.StatefulSetSpec{Replicas: &replicas}}
}

// Job is a Job whose pods are those built with OwnedBy("Job", name); rules
// is its podFailurePolicy, if any.
func Job(namespace, name string, rules ...batchv1.PodFailurePolicyRule) batchv1.Job {
	j := batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	if len(rules) > 0 {
		j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: rules}
	}
	return j
}

// PDB is a PodDisruptionBudget over the pods labelled app=<app>, whose status
// allows the given number of disruptions.
func PDB(namespace, app string, allowed int32) policyv1.PodDisruptionBudget {
	one := intstr.FromInt32(1)
	return policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: app, Generation: 1},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &one,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}},
		Status: policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: allowed},
	}
}

// Namespace is a namespace with labels.
func Namespace(name string, labels map[string]string) corev1.Namespace {
	l := map[string]string{corev1.LabelMetadataName: name}
	for k, v := range labels {
		l[k] = v
	}
	return corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}}
}

// Autoscaler is a HorizontalPodAutoscaler that scales the Deployment of
// that name.
func Autoscaler(namespace, name, deployment string) autoscalingv2.HorizontalPodAutoscaler {
	return autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{
			APIVersion: "apps/v1", Kind: "Deployment", Name: deployment}}}
}

// PriorityClass is a PriorityClass with a value.
func PriorityClass(name string, value int32) schedulingv1.PriorityClass {
	return schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
}

// Objects gathers API objects of any kind the snapshot holds.
func Objects(objs ...any) cluster.Objects {
	var o cluster.Objects
	for _, obj := range objs {
		switch v := obj.(type) {
		case corev1.Node:
			o.Nodes = append(o.Nodes, v)
		case *NodeBuilder:
			o.Nodes = append(o.Nodes, v.Obj())
		case corev1.Pod:
			o.Pods = append(o.Pods, v)
		case *PodBuilder:
			o.Pods = append(o.Pods, v.Obj())
		case policyv1.PodDisruptionBudget:
			o.PDBs = append(o.PDBs, v)
		case corev1.Namespace:
			o.Namespaces = append(o.Namespaces, v)
		case schedulingv1.PriorityClass:
			o.PriorityClasses = append(o.PriorityClasses, v)
		case appsv1.ReplicaSet:
			o.ReplicaSets = append(o.ReplicaSets, v)
		case appsv1.StatefulSet:
			o.StatefulSets = append(o.StatefulSets, v)
		case appsv1.Deployment:
			o.Deployments = append(o.Deployments, v)
		case batchv1.Job:
			o.Jobs = append(o.Jobs, v)
		case autoscalingv2.HorizontalPodAutoscaler:
			o.HorizontalPodAutoscalers = append(o.HorizontalPodAutoscalers, v)
			o.AutoscalersListed = true
		case cluster.NodeMetrics:
			o.NodeMetrics = append(o.NodeMetrics, v)
		case cluster.PodMetrics:
			o.PodMetrics = append(o.PodMetrics, v)
		case cluster.NodeScore:
			o.NodeScores = append(o.NodeScores, v)
		case corev1.PersistentVolume:
			o.PersistentVolumes = append(o.PersistentVolumes, v)
		case *PVBuilder:
			o.PersistentVolumes = append(o.PersistentVolumes, v.Obj())
		case corev1.PersistentVolumeClaim:
			o.PersistentVolumeClaims = append(o.PersistentVolumeClaims, v)
		case *PVCBuilder:
			o.PersistentVolumeClaims = append(o.PersistentVolumeClaims, v.Obj())
		case storagev1.StorageClass:
			o.StorageClasses = append(o.StorageClasses, v)
		case storagev1.CSINode:
			o.CSINodes = append(o.CSINodes, v)
		default:
			panic("clustertest.Objects: unsupported type")
		}
	}
	return o
}

// Snapshot builds a snapshot taken at Now from objects of any kind Objects
// accepts.
func Snapshot(t testing.TB, objs ...any) *cluster.Snapshot {
	t.Helper()
	s, err := cluster.New(Objects(objs...), Now)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
