package cluster

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Objects are the API objects a Snapshot is built from.
type Objects struct {
	Nodes           []corev1.Node
	Pods            []corev1.Pod
	PDBs            []policyv1.PodDisruptionBudget
	Namespaces      []corev1.Namespace
	PriorityClasses []schedulingv1.PriorityClass
	ReplicaSets     []appsv1.ReplicaSet
	// StatefulSets give the replica counts of their pods (see ReplicasOf)
	// and, with Deployments, how much unavailability a workload tolerates
	// (see MaxUnavailableOf).
	StatefulSets []appsv1.StatefulSet
	Deployments  []appsv1.Deployment
	// HorizontalPodAutoscalers say which Deployments an autoscaler scales
	// (see AutoscalerOf), which a surge must leave alone. A run reads them
	// only when its policy may surge; AutoscalersListed says that they
	// were read, even if the cluster has none.
	HorizontalPodAutoscalers []autoscalingv2.HorizontalPodAutoscaler
	AutoscalersListed        bool
	// RuntimeClasses are read for placing a new pod, whose RuntimeClass adds
	// overhead and scheduling constraints (see DefaultPod).
	RuntimeClasses []nodev1.RuntimeClass
	// Jobs tell whether evicting one of their pods costs the Job a retry
	// (see JobOf).
	Jobs []batchv1.Job
	// PersistentVolumes, PersistentVolumeClaims, StorageClasses and CSINodes
	// decide where a pod with volumes can start (see VolumesKnown); they
	// are trimmed to what scheduling reads as the snapshot is built.
	PersistentVolumes      []corev1.PersistentVolume
	PersistentVolumeClaims []corev1.PersistentVolumeClaim
	StorageClasses         []storagev1.StorageClass
	CSINodes               []storagev1.CSINode
	// VolumesListed says that the four kinds above were read, even if the
	// cluster has none of them.
	VolumesListed bool
	// StateConfigMaps are rebalancer's own state ConfigMaps found in a dump:
	// they carry the eviction history a dry run would see.
	StateConfigMaps []corev1.ConfigMap
	// NodeMetrics and PodMetrics are the metrics.k8s.io samples of the
	// nodes' and pods' usage, read when a policy balances on usage.
	NodeMetrics []NodeMetrics
	PodMetrics  []PodMetrics
	// NodeScores are the samples of a Prometheus query that rates each
	// node's utilization between 0 and 1.
	NodeScores []NodeScore
	// MetricsReadAt is when the metrics were read from a live cluster; zero
	// for a dump, whose newest node sample stands for it.
	MetricsReadAt metav1.Time
	// MetricsError says why the metrics a policy asks for could not be
	// read; empty when they were, or were not asked for.
	MetricsError string
	// ListedKinds are the kinds of the typed Lists a dump held
	// (PodDisruptionBudgetList), empty ones included: a kind listed so was
	// looked for, and its absence means the cluster has none. See Gaps.
	ListedKinds map[string]bool

	// shared is what a decoding shares among the pods it read (see
	// sharer), and workers decode the items of its Lists (see
	// listDecoder); nil once the decoding is done.
	shared  *sharer
	workers *itemWorkers
}

// The values of the built-in priority classes, used when a snapshot does not
// hold the PriorityClass objects themselves.
var builtinPriorityClasses = map[string]int32{
	"system-cluster-critical": 2000000000,
	"system-node-critical":    2000001000,
}

// IsBuiltinPriorityClass reports whether the API server creates the class
// itself. It admits no other class whose name starts with "system-".
func IsBuiltinPriorityClass(name string) bool {
	_, ok := builtinPriorityClasses[name]
	return ok
}

// Snapshot is the state of a cluster at one moment. Its nodes are sorted by
// name and its pods by namespace and name, so that everything computed from
// it is deterministic.
//
// A Snapshot is not safe for concurrent edits; concurrent reads are safe.
type Snapshot struct {
	// Now is when the snapshot was taken. Pod ages are measured from it, so
	// that a plan depends on the snapshot and not on when it is computed.
	Now time.Time

	nodes     []*Node
	nodeIndex map[string]int
	pods      []*Pod
	podIndex  map[string]*Pod
	// placement holds, for each pod id, the index of the node whose
	// resources the pod holds, or -1. Edits change it; Spec.NodeName does
	// not change.
	placement []int32

	pdbs            []*PDB
	pdbsByPod       [][]*PDB
	namespaces      map[string]*corev1.Namespace
	priorityClasses map[string]*schedulingv1.PriorityClass
	workloads       map[Workload][]*Pod
	jobs            map[string]*batchv1.Job
	replicas        replicaCounts
	tolerances      tolerances
	vol             volumes
	// autoscalers maps each Deployment an autoscaler scales to it; see
	// AutoscalerOf and AutoscalersKnown.
	autoscalers      map[Workload]string
	autoscalersKnown bool

	// usageAt is the moment a node's sample is judged stale against
	// (MaxUsageAge before it); zero when the snapshot has no node sample.
	usageAt time.Time
	// metricsError: see Objects.MetricsError.
	metricsError string

	// id identifies this snapshot as the owner of the nodes it may edit in
	// place; see Fork.
	id uint64
	// generation names the snapshot's set of objects; see Generation.
	generation uint64
	// specs numbers its pods' scheduling specs; forks share it.
	specs *specIDs
	// groups holds the pods' groups once built, for the snapshot and its
	// forks; a change to the set of objects replaces it.
	groups *podGroupsMemo

	// nominated are the pending pods with a nominated node (see Nominated).
	nominated []*Pod
}

var snapshotIDs, generations atomic.Uint64

// New builds a Snapshot from API objects. The objects are kept, not copied:
// the caller must not change them afterwards.
func New(objs Objects, now time.Time) (*Snapshot, error) {
	if err := checkQuantities(&objs); err != nil {
		return nil, err
	}
	s := &Snapshot{
		groups:          new(podGroupsMemo),
		Now:             now,
		nodeIndex:       make(map[string]int, len(objs.Nodes)),
		podIndex:        make(map[string]*Pod, len(objs.Pods)),
		namespaces:      make(map[string]*corev1.Namespace, len(objs.Namespaces)),
		priorityClasses: make(map[string]*schedulingv1.PriorityClass, len(objs.PriorityClasses)),
		workloads:       make(map[Workload][]*Pod),
		id:              snapshotIDs.Add(1),
		generation:      generations.Add(1),
		specs:           newSpecIDs(),
	}

	nodes := make([]*corev1.Node, len(objs.Nodes))
	for i := range objs.Nodes {
		nodes[i] = &objs.Nodes[i]
	}
	slices.SortFunc(nodes, func(a, b *corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	s.nodes = make([]*Node, len(nodes))
	for i, n := range nodes {
		if i > 0 && nodes[i-1].Name == n.Name {
			return nil, fmt.Errorf("node %q appears twice", n.Name)
		}
		s.nodes[i] = newNode(n, i)
		s.nodes[i].owner = s.id
		s.nodeIndex[n.Name] = i
	}

	for i := range objs.Namespaces {
		s.namespaces[objs.Namespaces[i].Name] = &objs.Namespaces[i]
	}
	for i := range objs.PriorityClasses {
		s.priorityClasses[objs.PriorityClasses[i].Name] = &objs.PriorityClasses[i]
	}
	s.jobs = make(map[string]*batchv1.Job, len(objs.Jobs))
	for i := range objs.Jobs {
		s.jobs[objs.Jobs[i].Namespace+"/"+objs.Jobs[i].Name] = &objs.Jobs[i]
	}

	pods := make([]*corev1.Pod, len(objs.Pods))
	for i := range objs.Pods {
		pods[i] = &objs.Pods[i]
	}
	slices.SortFunc(pods, func(a, b *corev1.Pod) int {
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	owners := newReplicaSetOwners(objs.ReplicaSets)
	s.replicas = newReplicaCounts(objs.ReplicaSets, objs.StatefulSets)
	s.tolerances = newTolerances(objs.Deployments, objs.StatefulSets)
	s.autoscalers = autoscaledDeployments(objs.HorizontalPodAutoscalers)
	s.autoscalersKnown = objs.AutoscalersListed || len(objs.HorizontalPodAutoscalers) > 0
	s.pods = make([]*Pod, len(pods))
	s.placement = make([]int32, len(pods))
	scratch := corev1.ResourceList{}
	podUsage := podSamples(objs.PodMetrics)
	for i, p := range pods {
		pod := newPodWith(p, i, scratch)
		pod.specIDs = s.specs.of(p)
		pod.Usage = podUsage[p.Namespace+"/"+p.Name]
		if _, dup := s.podIndex[pod.Key]; dup {
			return nil, fmt.Errorf("pod %s appears twice", pod.Key)
		}
		pod.Workload = owners.workloadOf(pod)
		if p.Spec.Priority == nil && p.Spec.PriorityClassName != "" {
			// The API server's admission fills spec.priority from the class;
			// an object written by hand may only name the class.
			if v, ok := s.PriorityClassValue(p.Spec.PriorityClassName); ok {
				pod.Priority = v
			}
		}
		s.pods[i] = pod
		s.podIndex[pod.Key] = pod
		s.placement[i] = -1
		if !pod.Workload.IsZero() {
			s.workloads[pod.Workload] = append(s.workloads[pod.Workload], pod)
		}
		if p.Spec.NodeName == "" || pod.IsTerminal() {
			continue
		}
		if ni, ok := s.nodeIndex[p.Spec.NodeName]; ok {
			s.nodes[ni].add(pod)
			s.placement[i] = int32(ni)
		}
	}

	s.nominated = nominatedPods(s.pods)
	s.attachUsage(&objs)
	s.vol = newVolumes(&objs)
	s.vol.indexClaimUsers(s.pods)
	s.vol.indexCSINodes(s.nodes)

	pdbs := make([]*policyv1.PodDisruptionBudget, len(objs.PDBs))
	for i := range objs.PDBs {
		pdbs[i] = &objs.PDBs[i]
	}
	slices.SortFunc(pdbs, func(a, b *policyv1.PodDisruptionBudget) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	for _, p := range pdbs {
		pdb, err := newPDB(p)
		if err != nil {
			return nil, err
		}
		s.pdbs = append(s.pdbs, pdb)
	}
	s.pdbsByPod = matchPDBs(s.pods, s.pdbs)
	return s, nil
}

// Nodes returns every node, sorted by name. Do not modify the slice.
func (s *Snapshot) Nodes() []*Node { return s.nodes }

// Node returns the node with the given name, or nil.
func (s *Snapshot) Node(name string) *Node {
	if i, ok := s.nodeIndex[name]; ok {
		return s.nodes[i]
	}
	return nil
}

// Pods returns every pod of every phase, sorted by namespace and name. Do not
// modify the slice.
func (s *Snapshot) Pods() []*Pod { return s.pods }

// Pod returns the pod with the given "namespace/name" key, or nil.
func (s *Snapshot) Pod(key string) *Pod { return s.podIndex[key] }

// NodeOf returns the node whose resources the pod holds in this snapshot,
// after edits, or nil for a pod that is pending, finished or bound to a node
// the snapshot does not know.
func (s *Snapshot) NodeOf(p *Pod) *Node {
	if p.id < 0 || p.id >= len(s.placement) || s.pods[p.id] != p {
		return nil
	}
	if i := s.placement[p.id]; i >= 0 {
		return s.nodes[i]
	}
	return nil
}

// Strays returns the live pods bound to a node that the snapshot does not
// hold: a dump of only some nodes, or a node deleted between the lists of a
// live load. They take nothing from any node the planner sees, and no
// strategy moves them.
func (s *Snapshot) Strays() []*Pod {
	var out []*Pod
	for _, p := range s.pods {
		if p.Spec.NodeName != "" && !p.IsTerminal() && s.Node(p.Spec.NodeName) == nil {
			out = append(out, p)
		}
	}
	return out
}

// PodsOf returns the pods of a workload, sorted by namespace and name.
func (s *Snapshot) PodsOf(w Workload) []*Pod { return s.workloads[w] }

// Workloads returns every workload that has a pod in the snapshot, sorted.
func (s *Snapshot) Workloads() []Workload {
	ws := make([]Workload, 0, len(s.workloads))
	for w := range s.workloads {
		ws = append(ws, w)
	}
	slices.SortFunc(ws, func(a, b Workload) int {
		switch {
		case a.Less(b):
			return -1
		case b.Less(a):
			return 1
		}
		return 0
	})
	return ws
}

// PDBs returns every PodDisruptionBudget, sorted by namespace and name.
func (s *Snapshot) PDBs() []*PDB { return s.pdbs }

// PDBsFor returns the budgets that cover the pod.
func (s *Snapshot) PDBsFor(p *Pod) []*PDB {
	if p.id < 0 || p.id >= len(s.pdbsByPod) {
		return nil
	}
	return s.pdbsByPod[p.id]
}

// Namespace returns the namespace object, or nil when the snapshot does not
// hold it.
func (s *Snapshot) Namespace(name string) *corev1.Namespace { return s.namespaces[name] }

// NamespaceLabels returns a namespace's labels. The API server gives every
// namespace the kubernetes.io/metadata.name label, so a namespace missing from
// the snapshot still has that one.
func (s *Snapshot) NamespaceLabels(name string) map[string]string {
	if ns := s.namespaces[name]; ns != nil && ns.Labels != nil {
		return ns.Labels
	}
	return map[string]string{corev1.LabelMetadataName: name}
}

// PriorityClassValue returns the value of a PriorityClass by name, falling
// back to the built-in classes' fixed values.
func (s *Snapshot) PriorityClassValue(name string) (int32, bool) {
	if pc := s.priorityClasses[name]; pc != nil {
		return pc.Value, true
	}
	v, ok := builtinPriorityClasses[name]
	return v, ok
}
