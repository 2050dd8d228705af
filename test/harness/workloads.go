package harness

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// WorkloadSpec describes a Deployment, StatefulSet or DaemonSet for the
// Create* helpers.
type WorkloadSpec struct {
	Namespace string // default "default"
	Name      string
	// Replicas is ignored for DaemonSets.
	Replicas int32
	// Labels select the pods and are set on them; default app=<Name>.
	Labels map[string]string
	// CPU and Memory are the container's requests (and nothing else: no
	// limits). Defaults: "100m", "128Mi".
	CPU    string
	Memory string
	// NodeSelector, Tolerations and Affinity go to the pod spec as given.
	NodeSelector map[string]string
	Tolerations  []corev1.Toleration
	Affinity     *corev1.Affinity
	// SchedulerName, if set, keeps kube-scheduler away from the pods (it
	// only schedules pods naming it), so that a test places them itself.
	SchedulerName string
	// PodTemplate, if set, is called last to change anything else.
	PodTemplate func(*corev1.PodTemplateSpec)
}

func (s *WorkloadSpec) defaults() {
	if s.Namespace == "" {
		s.Namespace = metav1.NamespaceDefault
	}
	if len(s.Labels) == 0 {
		s.Labels = map[string]string{"app": s.Name}
	}
	if s.CPU == "" {
		s.CPU = "100m"
	}
	if s.Memory == "" {
		s.Memory = "128Mi"
	}
}

// PodLabels are the labels of the workload's pods (Labels, or the default
// app=<Name>), for a PDB selector or a node affinity term.
func (s WorkloadSpec) PodLabels() map[string]string {
	s.defaults()
	return maps.Clone(s.Labels)
}

// Selector is the label selector string of the workload's pods.
func (s WorkloadSpec) Selector() string {
	return labels.SelectorFromSet(s.PodLabels()).String()
}

func (s *WorkloadSpec) podTemplate() (corev1.PodTemplateSpec, error) {
	cpu, err := resource.ParseQuantity(s.CPU)
	if err != nil {
		return corev1.PodTemplateSpec{}, fmt.Errorf("cpu %q: %w", s.CPU, err)
	}
	mem, err := resource.ParseQuantity(s.Memory)
	if err != nil {
		return corev1.PodTemplateSpec{}, fmt.Errorf("memory %q: %w", s.Memory, err)
	}
	tmpl := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(s.Labels)},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "app",
				// Never pulled: kwok only pretends to run containers.
				Image: "registry.invalid/rebalancer/fake:1",
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem},
				},
			}},
			NodeSelector:  s.NodeSelector,
			Tolerations:   s.Tolerations,
			Affinity:      s.Affinity,
			SchedulerName: s.SchedulerName,
			// kwok deletes terminating pods at once; a grace period would
			// only matter to a kubelet.
			TerminationGracePeriodSeconds: new(int64),
		},
	}
	if s.PodTemplate != nil {
		s.PodTemplate(&tmpl)
	}
	return tmpl, nil
}

// CreateDeployment creates a Deployment and returns it without waiting for
// its pods (see WaitForPodsRunning).
func (cp *ControlPlane) CreateDeployment(ctx context.Context, spec WorkloadSpec) (*appsv1.Deployment, error) {
	spec.defaults()
	tmpl, err := spec.podTemplate()
	if err != nil {
		return nil, err
	}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: spec.Name, Namespace: spec.Namespace, Labels: maps.Clone(spec.Labels)},
		Spec: appsv1.DeploymentSpec{
			Replicas: &spec.Replicas,
			Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(spec.Labels)},
			Template: tmpl,
		},
	}
	return cp.Client.AppsV1().Deployments(spec.Namespace).Create(ctx, d, metav1.CreateOptions{})
}

// CreateStatefulSet creates a StatefulSet with parallel pod management, so
// that its pods appear together as a Deployment's do rather than one at a
// time. It creates no headless Service: nothing resolves pod DNS here.
func (cp *ControlPlane) CreateStatefulSet(ctx context.Context, spec WorkloadSpec) (*appsv1.StatefulSet, error) {
	spec.defaults()
	tmpl, err := spec.podTemplate()
	if err != nil {
		return nil, err
	}
	s := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: spec.Name, Namespace: spec.Namespace, Labels: maps.Clone(spec.Labels)},
		Spec: appsv1.StatefulSetSpec{
			Replicas:            &spec.Replicas,
			Selector:            &metav1.LabelSelector{MatchLabels: maps.Clone(spec.Labels)},
			Template:            tmpl,
			ServiceName:         spec.Name,
			PodManagementPolicy: appsv1.ParallelPodManagement,
		},
	}
	return cp.Client.AppsV1().StatefulSets(spec.Namespace).Create(ctx, s, metav1.CreateOptions{})
}

// CreateDaemonSet creates a DaemonSet. Its pods carry node affinity to their
// node but are placed by kube-scheduler, so they stay Pending without
// Options.Scheduler unless a test binds them (BindPendingDaemonSetPods).
func (cp *ControlPlane) CreateDaemonSet(ctx context.Context, spec WorkloadSpec) (*appsv1.DaemonSet, error) {
	spec.defaults()
	tmpl, err := spec.podTemplate()
	if err != nil {
		return nil, err
	}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: spec.Name, Namespace: spec.Namespace, Labels: maps.Clone(spec.Labels)},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(spec.Labels)},
			Template: tmpl,
		},
	}
	return cp.Client.AppsV1().DaemonSets(spec.Namespace).Create(ctx, ds, metav1.CreateOptions{})
}

// PDBSpec describes a PodDisruptionBudget; set exactly one of MinAvailable
// and MaxUnavailable.
type PDBSpec struct {
	Namespace string // default "default"
	Name      string
	// Selector is required: a nil map is an error, because in policy/v1 an
	// empty selector selects every pod of the namespace, which is rarely
	// what a test means. Pass an empty, non-nil map to get that on purpose.
	Selector       map[string]string
	MinAvailable   *intstr.IntOrString
	MaxUnavailable *intstr.IntOrString
}

// CreatePDB creates a PodDisruptionBudget and waits until the disruption
// controller has computed its status for the current generation: before
// that, disruptionsAllowed is 0 and every eviction would be refused, which a
// test could mistake for the budget working.
func (cp *ControlPlane) CreatePDB(ctx context.Context, spec PDBSpec) (*policyv1.PodDisruptionBudget, error) {
	if spec.Namespace == "" {
		spec.Namespace = metav1.NamespaceDefault
	}
	if spec.Selector == nil {
		return nil, fmt.Errorf("CreatePDB %s/%s: nil Selector would select every pod in the namespace", spec.Namespace, spec.Name)
	}
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: spec.Name, Namespace: spec.Namespace},
		Spec: policyv1.PodDisruptionBudgetSpec{
			Selector:       &metav1.LabelSelector{MatchLabels: spec.Selector},
			MinAvailable:   spec.MinAvailable,
			MaxUnavailable: spec.MaxUnavailable,
		},
	}
	if _, err := cp.Client.PolicyV1().PodDisruptionBudgets(spec.Namespace).Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	return cp.WaitForPDBObserved(ctx, spec.Namespace, spec.Name)
}

// WaitForPDBObserved waits until the PDB's status.observedGeneration equals
// its generation and returns it.
func (cp *ControlPlane) WaitForPDBObserved(ctx context.Context, namespace, name string) (*policyv1.PodDisruptionBudget, error) {
	var (
		pdb   *policyv1.PodDisruptionBudget
		state waitState
	)
	err := WaitFor(ctx, time.Minute, fmt.Sprintf("PDB %s/%s status observed", namespace, name), func(ctx context.Context) (bool, error) {
		got, err := cp.Client.PolicyV1().PodDisruptionBudgets(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			state.last = err.Error()
			return false, nil
		}
		pdb = got
		state.last = fmt.Sprintf("generation %d, observedGeneration %d", got.Generation, got.Status.ObservedGeneration)
		return got.Status.ObservedGeneration == got.Generation, nil
	})
	return pdb, state.wrap(err)
}

// WaitForPodsRunning waits until exactly n pods in namespace match selector
// and all of them are Running, Ready, bound and not terminating, and returns
// them sorted by name. Exactly: a surplus pod (a replacement not yet rid of
// its predecessor) keeps it waiting.
func (cp *ControlPlane) WaitForPodsRunning(ctx context.Context, namespace, selector string, n int) ([]corev1.Pod, error) {
	var (
		pods  []corev1.Pod
		state waitState
	)
	timeout := time.Minute + time.Duration(n)*40*time.Millisecond
	err := waitFor(ctx, timeout, pollIntervalFor(n), fmt.Sprintf("%d Running pods %q in %s", n, selector, namespace), func(ctx context.Context) (bool, error) {
		list, err := cp.Client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			state.last = err.Error()
			return false, nil
		}
		running, other := 0, 0
		for i := range list.Items {
			if PodRunning(&list.Items[i]) {
				running++
			} else {
				other++
			}
		}
		state.last = fmt.Sprintf("%d Running, %d not", running, other)
		if running != n || other != 0 {
			return false, nil
		}
		pods = list.Items
		return true, nil
	})
	if err != nil {
		return nil, state.wrap(err)
	}
	sort.Slice(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
	return pods, nil
}

// PodRunning reports whether the pod is bound, Running, Ready and not being
// deleted.
func PodRunning(pod *corev1.Pod) bool {
	if pod.DeletionTimestamp != nil || pod.Spec.NodeName == "" || pod.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// BindPod binds a pending pod to a node through the pods/binding
// subresource, as kube-scheduler does.
func (cp *ControlPlane) BindPod(ctx context.Context, namespace, pod, node string) error {
	return cp.Client.CoreV1().Pods(namespace).Bind(ctx, &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: pod, Namespace: namespace},
		Target:     corev1.ObjectReference{Kind: "Node", Name: node},
	}, metav1.CreateOptions{})
}

// BindPendingPods waits until want unbound pods match selector in namespace
// and binds them round-robin to nodes, in pod-name order. It returns the
// pod-to-node assignment. The pods should name a SchedulerName that no
// scheduler serves if kube-scheduler runs, or it may bind them first.
func (cp *ControlPlane) BindPendingPods(ctx context.Context, namespace, selector string, want int, nodes []string) (map[string]string, error) {
	if len(nodes) == 0 {
		return nil, fmt.Errorf("BindPendingPods: no nodes")
	}
	var (
		pending []string
		state   waitState
	)
	err := waitFor(ctx, time.Minute+time.Duration(want)*10*time.Millisecond, pollIntervalFor(want), fmt.Sprintf("%d unbound pods %q in %s", want, selector, namespace), func(ctx context.Context) (bool, error) {
		list, err := cp.Client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{
			LabelSelector: selector,
			FieldSelector: "spec.nodeName=",
		})
		if err != nil {
			state.last = err.Error()
			return false, nil
		}
		pending = pending[:0]
		for _, p := range list.Items {
			if p.DeletionTimestamp == nil {
				pending = append(pending, p.Name)
			}
		}
		state.last = fmt.Sprintf("%d unbound", len(pending))
		return len(pending) >= want, nil
	})
	if err != nil {
		return nil, state.wrap(err)
	}
	sort.Strings(pending)
	pending = pending[:want]
	assignment := make(map[string]string, len(pending))
	for i, p := range pending {
		assignment[p] = nodes[i%len(nodes)]
	}
	err = parallel(ctx, len(pending), 16, func(ctx context.Context, i int) error {
		return cp.BindPod(ctx, namespace, pending[i], assignment[pending[i]])
	})
	return assignment, err
}

// CreateNamespace creates a namespace and waits for its default
// ServiceAccount, without which the API server refuses pods in it.
func (cp *ControlPlane) CreateNamespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	ns, err := cp.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	return ns, cp.waitForDefaultServiceAccount(ctx, name)
}

// Evict asks for the eviction of a pod through the policy/v1 Eviction
// subresource. A PDB refusal is an error for which apierrors.IsTooManyRequests
// is true.
func (cp *ControlPlane) Evict(ctx context.Context, namespace, pod string) error {
	return cp.Client.PolicyV1().Evictions(namespace).Evict(ctx, &policyv1.Eviction{
		ObjectMeta: metav1.ObjectMeta{Name: pod, Namespace: namespace},
	})
}

// BindDaemonSetPods binds the pending pods of a DaemonSet to the node each
// one is made for, standing in for kube-scheduler: the DaemonSet controller
// names the node in a required node affinity on metadata.name. It waits
// until want such pods exist and returns the pod-to-node assignment.
func (cp *ControlPlane) BindDaemonSetPods(ctx context.Context, namespace, selector string, want int) (map[string]string, error) {
	assignment := map[string]string{}
	var state waitState
	err := WaitFor(ctx, time.Minute, fmt.Sprintf("%d DaemonSet pods %q in %s to bind", want, selector, namespace), func(ctx context.Context) (bool, error) {
		list, err := cp.Client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{
			LabelSelector: selector,
			FieldSelector: "spec.nodeName=",
		})
		if err != nil {
			state.last = err.Error()
			return false, nil
		}
		for _, p := range list.Items {
			if _, done := assignment[p.Name]; done || p.DeletionTimestamp != nil {
				continue
			}
			node := daemonSetPodNode(&p)
			if node == "" {
				return false, fmt.Errorf("pod %s/%s has no node affinity on metadata.name", namespace, p.Name)
			}
			if err := cp.BindPod(ctx, namespace, p.Name, node); err != nil {
				return false, fmt.Errorf("bind %s/%s to %s: %w", namespace, p.Name, node, err)
			}
			assignment[p.Name] = node
		}
		state.last = fmt.Sprintf("%d bound", len(assignment))
		return len(assignment) >= want, nil
	})
	return assignment, state.wrap(err)
}

func daemonSetPodNode(pod *corev1.Pod) string {
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, f := range term.MatchFields {
			if f.Key == "metadata.name" && f.Operator == corev1.NodeSelectorOpIn && len(f.Values) == 1 {
				return f.Values[0]
			}
		}
	}
	return ""
}
