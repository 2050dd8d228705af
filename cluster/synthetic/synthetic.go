// Package synthetic generates large, realistic clusters for benchmarks and
// scale tests: nodes in zones and pools, some tainted or cordoned, and pods
// of Deployments (with their ReplicaSets), StatefulSets, a DaemonSet and
// bare pods, with realistic requests, priorities, PodDisruptionBudgets and
// scheduling constraints, and the StatefulSets' claims with their
// zonal PersistentVolumes, StorageClass and CSINodes. The same Spec always
// gives the same objects, and WriteList writes them as a dump.
package synthetic

import (
	"fmt"
	"math/rand/v2"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// PoolLabel names a node's pool.
const PoolLabel = "example.com/node-pool"

// GPUResource is the extended resource the gpu pool offers.
const GPUResource corev1.ResourceName = "nvidia.com/gpu"

// The kinds of workload the generator makes, in the "synthetic/kind" label
// of every pod, so that benchmarks can pick pods by what constrains them.
const (
	KindLabel = "synthetic/kind"
	// KindBasic pods have requests and a nodeSelector or a toleration.
	KindBasic = "basic"
	// KindSpread pods have a zone topology spread constraint.
	KindSpread = "spread"
	// KindAntiAffinity pods have required hostname anti-affinity against
	// their own replicas and a zone topology spread constraint.
	KindAntiAffinity = "anti-affinity"
	// KindPreferred pods have preferred anti-affinity and node affinity.
	KindPreferred = "preferred"
	// KindStateful pods belong to StatefulSets and mount a volume claim.
	KindStateful = "stateful"
	// KindDaemon pods belong to the DaemonSet, one per node.
	KindDaemon = "daemon"
	// KindBare pods have no controller.
	KindBare = "bare"
)

// Spec describes a cluster to generate.
type Spec struct {
	// Seed makes the cluster: the same Spec gives the same objects.
	Seed uint64
	// Nodes and Zones: nodes are spread over zones round-robin.
	Nodes int
	Zones int
	// Pods is the number of pods to make, the DaemonSet's one per node
	// included; controllers are sized to reach it.
	Pods int
	// Namespaces for the workloads (kube-system holds the DaemonSet).
	Namespaces int
	// Now is when the cluster is observed; pods are created before it.
	Now time.Time
}

// pool is a kind of node.
type pool struct {
	name     string
	share    int // in percent of the nodes
	cpu      int64
	memoryGi int64
	gpus     int64
	taint    *corev1.Taint
}

var pools = []pool{
	{name: "general", share: 60, cpu: 16, memoryGi: 64},
	{name: "compute", share: 20, cpu: 32, memoryGi: 64},
	{name: "memory", share: 15, cpu: 16, memoryGi: 128},
	{name: "gpu", share: 5, cpu: 32, memoryGi: 128, gpus: 4, taint: &corev1.Taint{Key: string(GPUResource), Value: "present", Effect: corev1.TaintEffectNoSchedule}},
}

// images are what nodes have pulled, with sizes, for ImageLocality.
var images = []struct {
	name string
	size int64
}{
	{"registry.example/base:1.0", 80 << 20},
	{"registry.example/java:21", 420 << 20},
	{"registry.example/python:3.12", 310 << 20},
	{"registry.example/node:22", 180 << 20},
	{"registry.example/ml:2.3", 2400 << 20},
}

// Generate makes the cluster.
func Generate(spec Spec) cluster.Objects {
	if spec.Zones <= 0 {
		spec.Zones = 3
	}
	if spec.Namespaces <= 0 {
		spec.Namespaces = 20
	}
	if spec.Now.IsZero() {
		spec.Now = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	g := &generator{spec: spec, r: rand.New(rand.NewPCG(spec.Seed, 0x5eed))}
	g.objs.Pods = make([]corev1.Pod, 0, spec.Pods)
	g.makeNodes()
	g.makeNamespaces()
	g.makeDaemonSet()
	g.makeWorkloads()
	g.makeStorage()
	return g.objs
}

type generator struct {
	spec Spec
	r    *rand.Rand
	objs cluster.Objects

	// What each node has left, for placing pods where they fit.
	freeCPU, freeMemory, freeGPUs []int64
	freePods                      []int32
	byPool                        map[string][]int
	uid                           int
	// zones maps node names to their zones, for the disks of StatefulSets.
	zones map[string]string
}

func (g *generator) nextUID() types.UID {
	g.uid++
	return types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", g.uid))
}

func (g *generator) makeNodes() {
	n := g.spec.Nodes
	g.objs.Nodes = make([]corev1.Node, n)
	g.freeCPU = make([]int64, n)
	g.freeMemory = make([]int64, n)
	g.freeGPUs = make([]int64, n)
	g.freePods = make([]int32, n)
	g.byPool = make(map[string][]int)
	for i := range n {
		// Pools by share, deterministically interleaved.
		p := pools[0]
		slot := (i * 7919) % 100
		for _, candidate := range pools {
			if slot < candidate.share {
				p = candidate
				break
			}
			slot -= candidate.share
		}
		name := fmt.Sprintf("node-%05d", i)
		// kubelet and system reserve about 5% of CPU and 8% of memory.
		cpu := p.cpu*1000 - p.cpu*50
		mem := p.memoryGi<<30 - p.memoryGi<<30/12
		b := clustertest.Node(name).Typed().UID(g.nextUID()).CreatedAt(time.Time{}).
			Zone(zoneName(i%g.spec.Zones)).Label(corev1.LabelTopologyRegion, "region-1").
			Label(corev1.LabelOSStable, "linux").Label(corev1.LabelArchStable, "amd64").Label(PoolLabel, p.name).
			AllocatableQuantity(corev1.ResourceCPU, *resource.NewMilliQuantity(cpu, resource.DecimalSI)).
			AllocatableQuantity(corev1.ResourceMemory, *resource.NewQuantity(mem, resource.BinarySI)).
			AllocatableQuantity(corev1.ResourceEphemeralStorage, *resource.NewQuantity(100<<30, resource.BinarySI)).
			Pods(110)
		if p.gpus > 0 {
			b.AllocatableQuantity(GPUResource, *resource.NewQuantity(p.gpus, resource.DecimalSI))
		}
		if p.taint != nil {
			b.Taint(p.taint.Key, p.taint.Value, p.taint.Effect)
		}
		switch g.r.IntN(100) {
		case 0:
			b.Cordoned()
		case 1, 2:
			b.Taint("dedicated", "infra", corev1.TaintEffectNoSchedule)
		case 3:
			b.Taint("example.com/maintenance", "soon", corev1.TaintEffectPreferNoSchedule)
		}
		for _, img := range images {
			if g.r.IntN(3) > 0 {
				b.Image(img.size, img.name)
			}
		}
		node := b.Obj()
		node.Status.Capacity = node.Status.Allocatable
		g.objs.Nodes[i] = node
		g.freeCPU[i], g.freeMemory[i], g.freePods[i], g.freeGPUs[i] = cpu, mem, 110, p.gpus
		g.byPool[p.name] = append(g.byPool[p.name], i)
	}
}

func (g *generator) makeNamespaces() {
	add := func(name string, labels map[string]string) {
		ns := clustertest.Namespace(name, labels)
		ns.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}
		ns.UID = g.nextUID()
		g.objs.Namespaces = append(g.objs.Namespaces, ns)
	}
	add("kube-system", nil)
	for i := range g.spec.Namespaces {
		add(namespaceName(i), map[string]string{"team": fmt.Sprintf("team-%d", i%5)})
	}
	g.objs.PriorityClasses = []schedulingv1.PriorityClass{
		{TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1", Kind: "PriorityClass"}, ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 100000},
		{TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1", Kind: "PriorityClass"}, ObjectMeta: metav1.ObjectMeta{Name: "batch"}, Value: -10},
	}
}

// zoneName names zone i: zone-a, zone-b… and zone-027 past the alphabet.
func zoneName(i int) string {
	if i < 26 {
		return fmt.Sprintf("zone-%c", 'a'+i)
	}
	return fmt.Sprintf("zone-%03d", i)
}

func namespaceName(i int) string { return fmt.Sprintf("ns-%03d", i) }

// template is what the replicas of one controller share.
type template struct {
	namespace, name string
	kind            string
	labels          map[string]string
	spec            corev1.PodSpec
	priorityClass   string
	priority        int32
	owner           metav1.OwnerReference
	// pool restricts placement to one pool ("" for general-purpose pools).
	pool string
	// apart places replicas on different nodes; used holds the nodes taken.
	apart bool
	used  map[int]bool
	// byZone places replica i in zone i mod Zones, as a zone spread
	// constraint would have.
	byZone   bool
	replicas int
}

func (g *generator) makeDaemonSet() {
	t := template{
		namespace: "kube-system", name: "node-exporter", kind: KindDaemon,
		labels:        map[string]string{"app": "node-exporter", KindLabel: KindDaemon},
		priorityClass: "system-node-critical", priority: 2000001000,
		owner: metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "node-exporter", UID: g.nextUID(), Controller: ptrTo(true)},
	}
	for i := range g.objs.Nodes {
		// A DaemonSet pod's own affinity names its node, as the DaemonSet
		// controller writes it.
		tt := t
		tt.spec = withRequests(clustertest.Pod(t.namespace, t.name).SchedulerName("").Image(images[0].name), 100, 128<<20).
			Tolerate("", "", "").
			RequireNodeAffinity(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{
				{Key: metav1.ObjectNameField, Operator: corev1.NodeSelectorOpIn, Values: []string{g.objs.Nodes[i].Name}}}}).
			Obj().Spec
		g.addPod(&tt, fmt.Sprintf("node-exporter-%05d", i), nil, i)
	}
}

// makeWorkloads makes controllers until the pod count is reached: mostly
// Deployments of various kinds, some StatefulSets and a few bare pods.
func (g *generator) makeWorkloads() {
	remaining := g.spec.Pods - len(g.objs.Pods)
	for w := 0; remaining > 0; w++ {
		ns := namespaceName(g.r.IntN(g.spec.Namespaces))
		roll := g.r.IntN(100)
		var replicas int
		switch {
		case roll < 2:
			replicas = 1
			g.makeBarePod(ns, w)
		case roll < 8:
			replicas = 1 + g.r.IntN(5)
			g.makeStatefulSet(ns, w, min(replicas, remaining))
		default:
			replicas = g.replicas()
			g.makeDeployment(ns, w, min(replicas, remaining), roll)
		}
		remaining -= replicas
	}
}

// replicas follows a heavy tail: most workloads are small, a few large.
func (g *generator) replicas() int {
	switch r := g.r.IntN(100); {
	case r < 50:
		return 1 + g.r.IntN(4)
	case r < 85:
		return 5 + g.r.IntN(20)
	case r < 97:
		return 25 + g.r.IntN(75)
	default:
		return 100 + g.r.IntN(300)
	}
}

// requests picks a realistic CPU (millicores) and memory (bytes) request.
func (g *generator) requests() (int64, int64) {
	cpus := []int64{50, 100, 100, 100, 200, 250, 250, 500, 500, 1000}
	mems := []int64{64, 128, 256, 256, 512, 512, 1024, 1024, 2048, 4096}
	return cpus[g.r.IntN(len(cpus))], mems[g.r.IntN(len(mems))] << 20
}

// withRequests sets the CPU (millicores) and memory (bytes) requests of a
// template's container.
func withRequests(b *clustertest.PodBuilder, milliCPU, memory int64) *clustertest.PodBuilder {
	return b.RequestQuantity(corev1.ResourceCPU, *resource.NewMilliQuantity(milliCPU, resource.DecimalSI)).
		RequestQuantity(corev1.ResourceMemory, *resource.NewQuantity(memory, resource.BinarySI))
}

func (g *generator) makeDeployment(ns string, w, replicas, roll int) {
	name := fmt.Sprintf("app-%05d", w)
	hash := fmt.Sprintf("%08x", g.r.Uint32())
	depUID := g.nextUID()
	rsName := name + "-" + hash
	rs := appsv1.ReplicaSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: rsName, UID: g.nextUID(),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: name, UID: depUID, Controller: ptrTo(true)}}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptrTo(int32(replicas)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name, "pod-template-hash": hash}}},
	}
	g.objs.ReplicaSets = append(g.objs.ReplicaSets, rs)

	cpu, mem := g.requests()
	t := template{
		namespace: ns, name: name,
		labels: map[string]string{"app": name, "pod-template-hash": hash},
		owner:  metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rsName, UID: rs.UID, Controller: ptrTo(true)},
	}
	spec := withRequests(clustertest.Pod(ns, name).Image(images[g.r.IntN(4)].name), cpu, mem)
	appSelector := clustertest.Selector("app", name)
	zoneSpread := corev1.TopologySpreadConstraint{
		MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: appSelector, MatchLabelKeys: []string{"pod-template-hash"},
	}
	switch {
	case roll < 40:
		t.kind = KindBasic
		if g.r.IntN(2) == 0 {
			t.pool = []string{"general", "compute", "memory"}[g.r.IntN(3)]
			spec.NodeSelector(PoolLabel, t.pool)
		} else {
			spec.Tolerate("dedicated", "infra", corev1.TaintEffectNoSchedule)
		}
	case roll < 55:
		t.kind = KindSpread
		if g.r.IntN(2) == 0 {
			zoneSpread.WhenUnsatisfiable = corev1.ScheduleAnyway
		}
		spec.SpreadConstraint(zoneSpread)
	case roll < 63:
		t.kind = KindAntiAffinity
		t.apart = true
		spec.AntiAffinityTerm(clustertest.AffinityTerm(corev1.LabelHostname, appSelector)).SpreadConstraint(zoneSpread)
		t.priorityClass, t.priority = "high", 100000
	case roll < 75:
		t.kind = KindPreferred
		spec.PreferPodAntiAffinity(100, clustertest.AffinityTerm(corev1.LabelHostname, appSelector)).
			PreferNodeLabelIn(50, PoolLabel, "compute")
	case roll < 78:
		t.kind = KindBasic
		t.pool = "gpu"
		spec.NodeSelector(PoolLabel, "gpu").Tolerate(string(GPUResource), "", corev1.TaintEffectNoSchedule).
			Image(images[4].name).RequestQuantity(GPUResource, *resource.NewQuantity(1, resource.DecimalSI))
	default:
		t.kind = KindBasic
		spec.Tolerate("example.com/maintenance", "", "")
		if g.r.IntN(3) == 0 {
			t.priorityClass, t.priority = "batch", -10
		}
	}
	t.labels[KindLabel] = t.kind
	spec.PriorityClass(t.priorityClass)
	if t.priority != 0 {
		spec.Priority(t.priority)
	}
	t.spec = spec.Obj().Spec
	t.byZone = len(t.spec.TopologySpreadConstraints) > 0
	for i := range replicas {
		g.addPod(&t, rsName+"-"+suffix(i), nil, -1)
	}
	if g.r.IntN(2) == 0 && replicas > 1 {
		g.addPDB(ns, name, appSelector, replicas)
	}
}

// suffix is a pod name suffix like a ReplicaSet's: five letters, unique
// per replica.
func suffix(i int) string {
	const letters = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	for k := len(b) - 1; k >= 0; k-- {
		b[k] = letters[i%len(letters)]
		i /= len(letters)
	}
	return string(b)
}

func (g *generator) makeStatefulSet(ns string, w, replicas int) {
	name := fmt.Sprintf("db-%05d", w)
	cpu, mem := g.requests()
	t := template{
		namespace: ns, name: name, kind: KindStateful,
		labels: map[string]string{"app": name, KindLabel: KindStateful},
		owner:  metav1.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: name, UID: g.nextUID(), Controller: ptrTo(true)},
		apart:  true,
	}
	t.spec = withRequests(clustertest.Pod(ns, name).Image(images[1].name), cpu, mem*2).
		PreferPodAntiAffinity(100, clustertest.AffinityTerm(corev1.LabelTopologyZone, clustertest.Selector("app", name))).
		Obj().Spec
	// Its pods' owner, as a dump lists it: the replica count it keeps.
	g.objs.StatefulSets = append(g.objs.StatefulSets, appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: t.owner.UID, Generation: 1},
		Spec: appsv1.StatefulSetSpec{Replicas: ptrTo(int32(replicas)), ServiceName: name,
			Selector: clustertest.Selector("app", name)},
	})
	for i := range replicas {
		podName := fmt.Sprintf("%s-%d", name, i)
		vol := []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-" + podName}}}}
		g.addPod(&t, podName, vol, -1)
		g.addDisk(&g.objs.Pods[len(g.objs.Pods)-1], "data-"+podName, g.zoneOfNode())
	}
	if replicas > 1 {
		g.addPDB(ns, name, clustertest.Selector("app", name), replicas)
	}
}

func (g *generator) makeBarePod(ns string, w int) {
	cpu, mem := g.requests()
	t := template{namespace: ns, name: fmt.Sprintf("debug-%05d", w), kind: KindBare, labels: map[string]string{"run": "debug", KindLabel: KindBare}}
	t.spec = withRequests(clustertest.Pod(ns, t.name).Image(images[0].name), cpu, mem).
		Volume(corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}).
		Obj().Spec
	g.addPod(&t, t.name, nil, -1)
}

func (g *generator) addPDB(ns, name string, sel *metav1.LabelSelector, replicas int) {
	pdb := policyv1.PodDisruptionBudget{
		TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: g.nextUID(), Generation: 1},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: sel},
	}
	allowed := int32(1)
	if g.r.IntN(2) == 0 {
		pdb.Spec.MaxUnavailable = ptrTo(intstr.FromInt32(1))
	} else {
		pdb.Spec.MinAvailable = ptrTo(intstr.FromString("50%"))
		allowed = int32(replicas - (replicas+1)/2)
	}
	pdb.Status = policyv1.PodDisruptionBudgetStatus{
		ObservedGeneration: 1, DisruptionsAllowed: allowed,
		CurrentHealthy: int32(replicas), DesiredHealthy: int32(replicas) - allowed, ExpectedPods: int32(replicas),
	}
	g.objs.PDBs = append(g.objs.PDBs, pdb)
}

// addPod makes one replica of a template and puts it on node (or, when
// node is -1, on a node with room for it).
func (g *generator) addPod(t *template, name string, volumes []corev1.Volume, node int) {
	labels := make(map[string]string, len(t.labels)+1)
	for k, v := range t.labels {
		labels[k] = v
	}
	if t.kind == KindStateful {
		labels["statefulset.kubernetes.io/pod-name"] = name
	}
	created := g.spec.Now.Add(-time.Duration(1+g.r.IntN(30*24*60)) * time.Minute)
	pod := corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: t.namespace, Name: name, UID: g.nextUID(), Labels: labels,
			CreationTimestamp: metav1.NewTime(created),
		},
		// Replicas share the template's slices, maps and pointers, as if
		// stamped from one template: copy a pod before changing it.
		Spec: t.spec,
	}
	if t.owner.Name != "" {
		pod.OwnerReferences = []metav1.OwnerReference{t.owner}
	}
	if volumes != nil {
		pod.Spec.Volumes = volumes
	}
	cpu, mem, gpus := podRequests(&pod.Spec)
	if node < 0 {
		node = g.pickNode(t, cpu, mem, gpus)
		t.replicas++
	}
	pod.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: corev1.PodQOSBurstable}
	if node >= 0 {
		pod.Spec.NodeName = g.objs.Nodes[node].Name
		g.freeCPU[node] -= cpu
		g.freeMemory[node] -= mem
		g.freeGPUs[node] -= gpus
		g.freePods[node]--
		if t.apart {
			if t.used == nil {
				t.used = make(map[int]bool)
			}
			t.used[node] = true
		}
		started := metav1.NewTime(created.Add(5 * time.Second))
		pod.Status.Phase = corev1.PodRunning
		pod.Status.StartTime = &started
		pod.Status.Conditions = []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue},
		}
	}
	g.objs.Pods = append(g.objs.Pods, pod)
}

func podRequests(spec *corev1.PodSpec) (cpu, mem, gpus int64) {
	for i := range spec.Containers {
		r := spec.Containers[i].Resources.Requests
		cpu += r.Cpu().MilliValue()
		mem += r.Memory().Value()
		if q, ok := r[GPUResource]; ok {
			gpus += q.Value()
		}
	}
	return cpu, mem, gpus
}

// pickNode finds a node with room for the pod among a few random tries in
// its pool (and zone, and away from its siblings, when the template asks);
// a pod that finds none stays pending, as in a full cluster.
func (g *generator) pickNode(t *template, cpu, mem, gpus int64) int {
	candidates := g.byPool[t.pool]
	n := len(g.objs.Nodes)
	zones := g.spec.Zones
	for range 16 {
		var i int
		switch {
		case t.pool != "":
			i = candidates[g.r.IntN(len(candidates))]
		case t.byZone && n > zones:
			// Node i is in zone i mod Zones.
			i = t.replicas%zones + zones*g.r.IntN((n-1-t.replicas%zones)/zones+1)
		default:
			i = g.r.IntN(n)
		}
		node := &g.objs.Nodes[i]
		if node.Spec.Unschedulable || g.freePods[i] <= 0 || g.freeCPU[i] < cpu || g.freeMemory[i] < mem || g.freeGPUs[i] < gpus || t.used[i] {
			continue
		}
		if t.pool == "" && node.Labels[PoolLabel] == "gpu" {
			continue
		}
		if !tolerates(t.spec.Tolerations, node.Spec.Taints) {
			continue
		}
		return i
	}
	return -1
}

// tolerates is a quick check of NoSchedule taints for placing generated
// pods; the scheduler engine does the real one.
func tolerates(tolerations []corev1.Toleration, taints []corev1.Taint) bool {
	for i := range taints {
		if taints[i].Effect != corev1.TaintEffectNoSchedule {
			continue
		}
		ok := false
		for j := range tolerations {
			tol := &tolerations[j]
			if (tol.Key == "" || tol.Key == taints[i].Key) && (tol.Operator == corev1.TolerationOpExists || tol.Value == taints[i].Value) &&
				(tol.Effect == "" || tol.Effect == taints[i].Effect) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func ptrTo[T any](v T) *T { return &v }
