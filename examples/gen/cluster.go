package main

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// created is when the example cluster's objects were made: long enough ago
// that no minPodAge protects them.
var created = time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)

// The cluster: six nodes of 4 CPUs and 16Gi in two zones; node-b3 is
// cordoned for maintenance. Zone a took most of the load when zone b came
// back from an outage, so node-a1 and node-a2 run hot while node-a3 idles.
var nodes = []struct {
	name, zone string
	cordoned   bool
}{
	{"node-a1", "zone-a", false},
	{"node-a2", "zone-a", false},
	{"node-a3", "zone-a", false},
	{"node-b1", "zone-b", false},
	{"node-b2", "zone-b", false},
	{"node-b3", "zone-b", true},
}

type workload struct {
	namespace, name, kind string
	image                 string
	cpu, memory           string
	guaranteed            bool
	bestEffort            bool
	priorityClass         string
	pvc                   bool
	// placement lists, per node, how many replicas run there.
	placement map[string]int
}

var workloads = []workload{
	{namespace: "shop", name: "web", kind: "Deployment", image: "registry.example/shop/web:2.4.1", cpu: "200m", memory: "256Mi",
		placement: map[string]int{"node-a1": 6, "node-a2": 4, "node-b1": 2}},
	{namespace: "shop", name: "api", kind: "Deployment", image: "registry.example/shop/api:1.9.0", cpu: "500m", memory: "512Mi",
		placement: map[string]int{"node-a1": 2, "node-a2": 2, "node-b1": 1, "node-b2": 1}},
	{namespace: "shop", name: "cart", kind: "Deployment", image: "registry.example/shop/cart:5.1.0", cpu: "100m", memory: "128Mi",
		placement: map[string]int{"node-a1": 4, "node-a2": 2, "node-a3": 1, "node-b1": 2, "node-b2": 1}},
	{namespace: "payments", name: "checkout", kind: "Deployment", image: "registry.example/payments/checkout:3.0.2", cpu: "250m", memory: "256Mi", guaranteed: true,
		placement: map[string]int{"node-a1": 2, "node-a2": 2}},
	{namespace: "payments", name: "ledger-db", kind: "StatefulSet", image: "registry.example/payments/postgres:16.4", cpu: "1", memory: "2Gi", guaranteed: true, pvc: true,
		placement: map[string]int{"node-a2": 1, "node-b1": 1, "node-b2": 1}},
	{namespace: "batch", name: "report", kind: "Deployment", image: "registry.example/batch/report:0.7.0", cpu: "100m", memory: "128Mi", priorityClass: "batch-low",
		placement: map[string]int{"node-a3": 2, "node-b2": 3, "node-b3": 1}},
	{namespace: "batch", name: "ingest", kind: "Deployment", image: "registry.example/batch/ingest:0.3.2", bestEffort: true, priorityClass: "batch-low",
		placement: map[string]int{"node-a2": 2, "node-a3": 2, "node-b1": 2, "node-b2": 2, "node-b3": 2}},
	{namespace: "kube-system", name: "coredns", kind: "Deployment", image: "registry.k8s.io/coredns/coredns:v1.12.1", cpu: "100m", memory: "70Mi", priorityClass: "system-cluster-critical",
		placement: map[string]int{"node-a1": 2}},
	{namespace: "kube-system", name: "metrics-server", kind: "Deployment", image: "registry.k8s.io/metrics-server/metrics-server:v0.8.0", cpu: "100m", memory: "200Mi", priorityClass: "system-cluster-critical",
		placement: map[string]int{"node-a3": 1}},
	{namespace: "monitoring", name: "node-exporter", kind: "DaemonSet", image: "quay.io/prometheus/node-exporter:v1.9.1", cpu: "50m", memory: "64Mi",
		placement: map[string]int{"node-a1": 1, "node-a2": 1, "node-a3": 1, "node-b1": 1, "node-b2": 1, "node-b3": 1}},
	// Someone's debugging shell: a bare pod nothing would recreate.
	{namespace: "default", name: "debug-shell", kind: "", image: "registry.example/tools/netshoot:0.13", cpu: "50m", memory: "64Mi",
		placement: map[string]int{"node-a1": 1}},
}

var namespaces = map[string]map[string]string{
	"default":     {},
	"shop":        {"team": "web"},
	"payments":    {"team": "payments"},
	"batch":       {"team": "data"},
	"kube-system": {},
	"monitoring":  {"team": "platform"},
}

func render() ([]byte, error) {
	var items []runtime.Object
	for _, name := range sortedKeys(namespaces) {
		labels := map[string]string{corev1.LabelMetadataName: name}
		for k, v := range namespaces[name] {
			labels[k] = v
		}
		items = append(items, &corev1.Namespace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: meta("", name, labels),
			Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceActive},
		})
	}
	items = append(items,
		&schedulingv1.PriorityClass{TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1", Kind: "PriorityClass"},
			ObjectMeta: meta("", "batch-low", nil), Value: -10, Description: "Batch work that may wait."},
		&schedulingv1.PriorityClass{TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1", Kind: "PriorityClass"},
			ObjectMeta: meta("", "system-cluster-critical", nil), Value: 2000000000, Description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."},
	)
	for _, n := range nodes {
		items = append(items, node(n.name, n.zone, n.cordoned))
	}
	for _, w := range workloads {
		items = append(items, w.objects()...)
	}
	items = append(items, checkoutPDB())
	items = append(items, storage()...)

	list := &corev1.List{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}, ListMeta: metav1.ListMeta{ResourceVersion: ""}}
	for _, obj := range items {
		list.Items = append(list.Items, runtime.RawExtension{Object: obj})
	}
	body, err := yaml.Marshal(list)
	if err != nil {
		return nil, err
	}
	head := "# An imbalanced example cluster, as `kubectl get nodes,pods,pdb,namespaces,deployments,replicasets,priorityclasses,pv,pvc,storageclasses,csinodes -A -o yaml` prints it.\n" +
		"# Generated by `go run ./examples/gen > examples/cluster.yaml`; edit examples/gen, not this file.\n"
	return append([]byte(head), body...), nil
}

func meta(namespace, name string, labels map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Namespace: namespace, Name: name, Labels: labels,
		UID:               uid(namespace, name),
		CreationTimestamp: metav1.NewTime(created),
		ResourceVersion:   "1",
	}
}

func uid(namespace, name string) types.UID {
	h := uint32(2166136261)
	for _, c := range namespace + "/" + name {
		h = (h ^ uint32(c)) * 16777619
	}
	return types.UID(fmt.Sprintf("%08x-0000-4000-8000-%012x", h, h))
}

func node(name, zone string, cordoned bool) *corev1.Node {
	b := clustertest.Node(name).Typed().UID(uid("", name)).CreatedAt(created).
		Zone(zone).Label(corev1.LabelTopologyRegion, "example-1").Label(corev1.LabelInstanceTypeStable, "standard-4").
		Label(corev1.LabelOSStable, "linux").Label(corev1.LabelArchStable, "amd64").
		CPU("4").Memory("16Gi").Pods(110).Allocatable(corev1.ResourceEphemeralStorage, "100Gi")
	if cordoned {
		b.Cordoned()
	}
	n := b.Obj()
	n.ResourceVersion = "1"
	n.Status.Capacity = n.Status.Allocatable
	// The Ready condition as the kubelet reports it.
	ready := &n.Status.Conditions[0]
	ready.Reason, ready.LastHeartbeatTime, ready.LastTransitionTime = "KubeletReady", metav1.NewTime(created), metav1.NewTime(created)
	return &n
}

func (w workload) objects() []runtime.Object {
	var out []runtime.Object
	owner := metav1.OwnerReference{APIVersion: "apps/v1", Kind: w.kind, Name: w.name, UID: uid(w.namespace, w.name), Controller: new(true), BlockOwnerDeletion: new(true)}
	podPrefix := w.name + "-"
	if w.kind == "Deployment" {
		// As the API server stores it: a rolling update with its defaults.
		quarter := intstr.FromString("25%")
		out = append(out, &appsv1.Deployment{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: meta(w.namespace, w.name, map[string]string{"app": w.name}),
			Spec: appsv1.DeploymentSpec{
				Replicas: new(int32(w.replicas())),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": w.name}},
				Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
					RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: &quarter, MaxSurge: &quarter}},
			},
			Status: appsv1.DeploymentStatus{Replicas: int32(w.replicas()), ReadyReplicas: int32(w.replicas()), AvailableReplicas: int32(w.replicas())},
		})
		rsName := w.name + "-" + hash(w.name)
		rs := &appsv1.ReplicaSet{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
			ObjectMeta: meta(w.namespace, rsName, map[string]string{"app": w.name}),
			Spec: appsv1.ReplicaSetSpec{
				Replicas: new(int32(w.replicas())),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": w.name}},
			},
			Status: appsv1.ReplicaSetStatus{Replicas: int32(w.replicas()), ReadyReplicas: int32(w.replicas()), AvailableReplicas: int32(w.replicas())},
		}
		rs.OwnerReferences = []metav1.OwnerReference{owner}
		out = append(out, rs)
		owner = metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rsName, UID: uid(w.namespace, rsName), Controller: new(true), BlockOwnerDeletion: new(true)}
		podPrefix = rsName + "-"
	}
	i := 0
	for _, nodeName := range sortedKeys(w.placement) {
		for range w.placement[nodeName] {
			name := podPrefix + suffix(w.name, i)
			switch w.kind {
			case "StatefulSet":
				name = fmt.Sprintf("%s-%d", w.name, i)
			case "":
				name = w.name
			}
			out = append(out, w.pod(name, nodeName, owner, i))
			i++
		}
	}
	return out
}

func (w workload) replicas() int {
	n := 0
	for _, c := range w.placement {
		n += c
	}
	return n
}

func (w workload) pod(name, nodeName string, owner metav1.OwnerReference, i int) *corev1.Pod {
	c := corev1.Container{Name: w.name, Image: w.image}
	qos := corev1.PodQOSBestEffort
	requests := corev1.ResourceList{}
	if !w.bestEffort {
		requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(w.cpu), corev1.ResourceMemory: resource.MustParse(w.memory)}
		c.Resources.Requests = requests
		qos = corev1.PodQOSBurstable
	}
	if w.guaranteed {
		c.Resources.Limits = requests
		qos = corev1.PodQOSGuaranteed
	}
	started := metav1.NewTime(created.Add(time.Duration(i) * time.Minute))
	p := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: meta(w.namespace, name, map[string]string{"app": w.name}),
		Spec: corev1.PodSpec{
			NodeName:      nodeName,
			Containers:    []corev1.Container{c},
			SchedulerName: corev1.DefaultSchedulerName,
			Priority:      new(int32(0)),
			Tolerations: []corev1.Toleration{
				{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: new(int64(300))},
				{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: new(int64(300))},
			},
		},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning, QOSClass: qos, StartTime: &started,
			HostIP: "10.0.0.1", PodIP: fmt.Sprintf("10.244.0.%d", 10+i),
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: started},
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: started},
			},
			ContainerStatuses: []corev1.ContainerStatus{{Name: w.name, Image: w.image, Ready: true, Started: new(true),
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}}},
		},
	}
	if w.kind != "" {
		p.OwnerReferences = []metav1.OwnerReference{owner}
	}
	switch w.priorityClass {
	case "":
	case "system-cluster-critical":
		p.Spec.PriorityClassName, p.Spec.Priority = w.priorityClass, new(int32(2000000000))
	case "batch-low":
		p.Spec.PriorityClassName, p.Spec.Priority = w.priorityClass, new(int32(-10))
	}
	if w.kind == "DaemonSet" {
		p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	if w.pvc {
		p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-" + name}}}}
	}
	return p
}

// ssdDriver is the CSI driver of the cluster's disks, which attaches at
// most 25 volumes to a node.
const ssdDriver = "pd.csi.storage.gke.io"

// storage is the zonal disk class, each node's CSINode, and for each
// StatefulSet pod with a claim the claim and the disk it is bound to, in
// the zone of the node the pod runs on: such a pod can only move within
// its zone.
func storage() []runtime.Object {
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	out := []runtime.Object{&storagev1.StorageClass{
		TypeMeta:          metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass"},
		ObjectMeta:        meta("", "zonal-ssd", nil),
		Provisioner:       ssdDriver,
		VolumeBindingMode: &wffc,
		ReclaimPolicy:     new(corev1.PersistentVolumeReclaimDelete),
	}}
	zoneOf := map[string]string{}
	for _, n := range nodes {
		zoneOf[n.name] = n.zone
		out = append(out, &storagev1.CSINode{
			TypeMeta:   metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "CSINode"},
			ObjectMeta: meta("", n.name, nil),
			Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{{Name: ssdDriver, NodeID: n.name,
				TopologyKeys: []string{corev1.LabelTopologyZone}, Allocatable: &storagev1.VolumeNodeResources{Count: new(int32(25))}}}},
		})
	}
	for _, w := range workloads {
		if !w.pvc {
			continue
		}
		i := 0
		for _, nodeName := range sortedKeys(w.placement) {
			for range w.placement[nodeName] {
				claim := fmt.Sprintf("data-%s-%d", w.name, i)
				pv := "pvc-" + string(uid(w.namespace, claim))
				size := corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("50Gi")}
				class := "zonal-ssd"
				pvc := &corev1.PersistentVolumeClaim{
					TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
					ObjectMeta: meta(w.namespace, claim, map[string]string{"app": w.name}),
					Spec: corev1.PersistentVolumeClaimSpec{
						AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
						Resources:        corev1.VolumeResourceRequirements{Requests: size},
						StorageClassName: &class,
						VolumeName:       pv,
						VolumeMode:       new(corev1.PersistentVolumeFilesystem),
					},
					Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound,
						AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, Capacity: size},
				}
				pvc.Annotations = map[string]string{"pv.kubernetes.io/bind-completed": "yes", "pv.kubernetes.io/bound-by-controller": "yes",
					"volume.kubernetes.io/selected-node": nodeName, "volume.kubernetes.io/storage-provisioner": ssdDriver}
				out = append(out, pvc, &corev1.PersistentVolume{
					TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolume"},
					ObjectMeta: meta("", pv, nil),
					Spec: corev1.PersistentVolumeSpec{
						Capacity:                      size,
						AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
						PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
						StorageClassName:              class,
						VolumeMode:                    new(corev1.PersistentVolumeFilesystem),
						ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1",
							Namespace: w.namespace, Name: claim, UID: uid(w.namespace, claim)},
						PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
							Driver: ssdDriver, VolumeHandle: "projects/example/zones/" + zoneOf[nodeName] + "/disks/" + pv}},
						NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
							MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn,
								Values: []string{zoneOf[nodeName]}}}}}}},
					},
					Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound},
				})
				i++
			}
		}
	}
	return out
}

func checkoutPDB() *policyv1.PodDisruptionBudget {
	minAvailable := intstr.FromInt32(3)
	pdb := &policyv1.PodDisruptionBudget{
		TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
		ObjectMeta: meta("payments", "checkout", nil),
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: &minAvailable,
			Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "checkout"}},
		},
		Status: policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: 1, CurrentHealthy: 4, DesiredHealthy: 3, ExpectedPods: 4},
	}
	pdb.Generation = 1
	return pdb
}

// hash and suffix imitate the random parts of the names the Deployment and
// ReplicaSet controllers generate, deterministically.
func hash(s string) string { return string(uid("", s))[:8][:5] + "bd" }

func suffix(s string, i int) string {
	const letters = "bcdfghjklmnpqrstvwxz2456789"
	h := uint32(i*7919) + uint32(len(s))*104729
	out := make([]byte, 5)
	for j := range out {
		h = h*1103515245 + 12345
		out[j] = letters[(h>>16)%uint32(len(letters))]
	}
	return string(out)
}
