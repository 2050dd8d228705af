package scheduler

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// The tests build clusters from these small options, so that each case
// reads like the Kubernetes documentation example it comes from.

var testNow = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

type nodeOption func(*corev1.Node)

// mkNode returns a node with room for 4 CPUs, 16Gi and 110 pods, labelled
// with its hostname.
func mkNode(name string, opts ...nodeOption) corev1.Node {
	n := corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("4"),
			corev1.ResourceMemory: resource.MustParse("16Gi"),
			corev1.ResourcePods:   resource.MustParse("110"),
		}},
	}
	for _, o := range opts {
		o(&n)
	}
	return n
}

func nodeLabels(kv ...string) nodeOption {
	return func(n *corev1.Node) {
		for i := 0; i+1 < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
	}
}

func zone(z string) nodeOption { return nodeLabels(corev1.LabelTopologyZone, z) }

func taint(key, value string, effect corev1.TaintEffect) nodeOption {
	return func(n *corev1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	}
}

func cordoned() nodeOption {
	return func(n *corev1.Node) { n.Spec.Unschedulable = true }
}

func allocatable(name corev1.ResourceName, q string) nodeOption {
	return func(n *corev1.Node) { n.Status.Allocatable[name] = resource.MustParse(q) }
}

func images(size int64, names ...string) nodeOption {
	return func(n *corev1.Node) {
		n.Status.Images = append(n.Status.Images, corev1.ContainerImage{Names: names, SizeBytes: size})
	}
}

type podOption func(*corev1.Pod)

// mkPod returns a pending pod in namespace "default" with one container.
func mkPod(name string, opts ...podOption) corev1.Pod {
	p := corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:1"}}},
	}
	for _, o := range opts {
		o(&p)
	}
	return p
}

func inNamespace(ns string) podOption { return func(p *corev1.Pod) { p.Namespace = ns } }

// on binds the pod to a node and marks it running.
func on(node string) podOption {
	return func(p *corev1.Pod) {
		p.Spec.NodeName = node
		p.Status.Phase = corev1.PodRunning
	}
}

func podLabels(kv ...string) podOption {
	return func(p *corev1.Pod) {
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func requests(cpu, memory string) podOption {
	return func(p *corev1.Pod) {
		r := corev1.ResourceList{}
		if cpu != "" {
			r[corev1.ResourceCPU] = resource.MustParse(cpu)
		}
		if memory != "" {
			r[corev1.ResourceMemory] = resource.MustParse(memory)
		}
		p.Spec.Containers[0].Resources.Requests = r
	}
}

func request(name corev1.ResourceName, q string) podOption {
	return func(p *corev1.Pod) {
		if p.Spec.Containers[0].Resources.Requests == nil {
			p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{}
		}
		p.Spec.Containers[0].Resources.Requests[name] = resource.MustParse(q)
	}
}

func toleration(t corev1.Toleration) podOption {
	return func(p *corev1.Pod) { p.Spec.Tolerations = append(p.Spec.Tolerations, t) }
}

func nodeSelector(kv ...string) podOption {
	return func(p *corev1.Pod) {
		if p.Spec.NodeSelector == nil {
			p.Spec.NodeSelector = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Spec.NodeSelector[kv[i]] = kv[i+1]
		}
	}
}

func affinity(p *corev1.Pod) *corev1.Affinity {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	return p.Spec.Affinity
}

func requiredNodeAffinity(terms ...corev1.NodeSelectorTerm) podOption {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.NodeAffinity == nil {
			a.NodeAffinity = &corev1.NodeAffinity{}
		}
		a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: terms}
	}
}

func preferredNodeAffinity(weight int32, term corev1.NodeSelectorTerm) podOption {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.NodeAffinity == nil {
			a.NodeAffinity = &corev1.NodeAffinity{}
		}
		a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.PreferredSchedulingTerm{Weight: weight, Preference: term})
	}
}

func match(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}
}

func selectorFor(kv ...string) *metav1.LabelSelector {
	s := &metav1.LabelSelector{MatchLabels: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		s.MatchLabels[kv[i]] = kv[i+1]
	}
	return s
}

func podAffinityTerm(key string, sel *metav1.LabelSelector) corev1.PodAffinityTerm {
	return corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: sel}
}

func requiredPodAffinity(terms ...corev1.PodAffinityTerm) podOption {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.PodAffinity == nil {
			a.PodAffinity = &corev1.PodAffinity{}
		}
		a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, terms...)
	}
}

func requiredPodAntiAffinity(terms ...corev1.PodAffinityTerm) podOption {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.PodAntiAffinity == nil {
			a.PodAntiAffinity = &corev1.PodAntiAffinity{}
		}
		a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, terms...)
	}
}

func preferredPodAffinity(weight int32, term corev1.PodAffinityTerm) podOption {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.PodAffinity == nil {
			a.PodAffinity = &corev1.PodAffinity{}
		}
		a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: term})
	}
}

func preferredPodAntiAffinity(weight int32, term corev1.PodAffinityTerm) podOption {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.PodAntiAffinity == nil {
			a.PodAntiAffinity = &corev1.PodAntiAffinity{}
		}
		a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: term})
	}
}

func spread(tc corev1.TopologySpreadConstraint) podOption {
	return func(p *corev1.Pod) { p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, tc) }
}

func hostPort(port int32, protocol corev1.Protocol, ip string) podOption {
	return func(p *corev1.Pod) {
		c := &p.Spec.Containers[0]
		c.Ports = append(c.Ports, corev1.ContainerPort{ContainerPort: port, HostPort: port, Protocol: protocol, HostIP: ip})
	}
}

func image(name string) podOption {
	return func(p *corev1.Pod) { p.Spec.Containers[0].Image = name }
}

// ownedBy makes the pod a replica of a ReplicaSet.
func ownedBy(kind, name string) podOption {
	return func(p *corev1.Pod) {
		apiVersion := "apps/v1"
		if kind == "ReplicationController" {
			apiVersion = "v1"
		}
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, UID: types.UID("uid-" + name), Controller: ptrTo(true)}}
	}
}

func ptrTo[T any](v T) *T { return &v }

// newSnapshot builds a snapshot and fails the test on error.
func newSnapshot(t testing.TB, nodes []corev1.Node, pods []corev1.Pod, namespaces ...corev1.Namespace) *cluster.Snapshot {
	t.Helper()
	s, err := cluster.New(cluster.Objects{Nodes: nodes, Pods: pods, Namespaces: namespaces}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// defaultEngine returns the engine of kube-scheduler's default profile.
func defaultEngine(t testing.TB) *Engine {
	t.Helper()
	e, err := NewEngine(DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// incoming returns the pod named "incoming" of the snapshot, the pod the
// tests schedule.
func incoming(t testing.TB, s *cluster.Snapshot) *cluster.Pod {
	t.Helper()
	p := s.Pod("default/incoming")
	if p == nil {
		t.Fatal("the snapshot has no pod default/incoming")
	}
	return p
}

// feasibleNodes returns the names of the nodes the engine finds feasible
// for the incoming pod.
func feasibleNodes(t testing.TB, e *Engine, s *cluster.Snapshot) []string {
	t.Helper()
	res := e.Schedule(s, incoming(t, s), Options{Explain: true})
	var names []string
	for _, n := range res.Nodes {
		if n.Feasible {
			names = append(names, n.Name)
		}
	}
	return names
}
