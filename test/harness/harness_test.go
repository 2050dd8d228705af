package harness_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// cp is shared by every test: a start costs seconds, each test isolates
// itself with its own namespace and nodes, and the scale test shows that a
// second control plane can run beside it.
var cp *harness.ControlPlane

func TestMain(m *testing.M) {
	// Bounds the cold build of the binaries plus the start.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Minute)
	start := time.Now()
	var err error
	cp, err = harness.Start(ctx, nil, harness.Options{Scheduler: true})
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "start control plane: %v\n", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "harness: control plane (with binaries) up in %s\n", time.Since(start).Round(time.Millisecond))
	code := m.Run()
	cp.Shutdown(code != 0)
	os.Exit(code)
}

// setup returns a context bounded well below go test's timeout, a fresh
// namespace, and arranges for the log location to be printed on failure.
func setup(t *testing.T) (context.Context, string) {
	t.Helper()
	cp.ReportOnFailure(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	if err := cp.Healthy(); err != nil {
		t.Fatalf("control plane unhealthy before the test: %v", err)
	}
	ns := strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))
	ns = strings.ReplaceAll(ns, "_", "-")
	if _, err := cp.CreateNamespace(ctx, ns); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	return ctx, ns
}

// nodeSetSelector confines a test's pods to the nodes it created, so tests
// sharing the control plane do not land on each other's nodes.
func nodeSetSelector(prefix string) map[string]string {
	return map[string]string{harness.NodeSetLabel: prefix}
}

func nodeNames(nodes []*corev1.Node) []string {
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.Name
	}
	return names
}

func TestNodesBecomeReady(t *testing.T) {
	ctx, _ := setup(t)
	// Control: a node without the kwok annotation, created first, must not
	// be Ready when kwok's nodes are; otherwise the checks below would not
	// show that kwok did anything.
	unmanaged := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name:   "unmanaged",
		Labels: map[string]string{"kubernetes.io/hostname": "unmanaged"},
	}}
	createdUnmanaged, err := cp.Client.CoreV1().Nodes().Create(ctx, unmanaged, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !hasNotReadyTaint(createdUnmanaged) {
		t.Errorf("new node lacks the not-ready taint the TaintNodesByCondition admission plugin adds: %v", createdUnmanaged.Spec.Taints)
	}
	t.Cleanup(func() {
		_ = cp.Client.CoreV1().Nodes().Delete(context.Background(), "unmanaged", metav1.DeleteOptions{})
	})

	zones := []string{"zone-a", "zone-b"}
	nodes, err := cp.CreateNodes(ctx, 3, harness.NodeSpec{
		NamePrefix: "ready",
		CPU:        "8",
		Memory:     "32Gi",
		Pods:       "50",
		Zones:      zones,
		Labels:     map[string]string{"pool": "general"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 3 {
		t.Fatalf("CreateNodes returned %d nodes, want 3", len(nodes))
	}
	for i, created := range nodes {
		// As created, the node had the taint; it is gone below because the
		// node lifecycle controller lifted it once kwok reported Ready.
		if !hasNotReadyTaint(created) {
			t.Errorf("%s: created without the not-ready taint: %v", created.Name, created.Spec.Taints)
		}
		// Read back instead of trusting CreateNodes' own wait.
		node, err := cp.Client.CoreV1().Nodes().Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !harness.NodeReady(node) {
			t.Errorf("%s: not Ready: %+v", node.Name, node.Status.Conditions)
		}
		if len(node.Spec.Taints) != 0 {
			t.Errorf("%s: tainted %v, want no taints", node.Name, node.Spec.Taints)
		}
		wantLabels := map[string]string{
			"type":                        "kwok",
			"kubernetes.io/hostname":      node.Name,
			"topology.kubernetes.io/zone": zones[i%len(zones)],
			"pool":                        "general",
		}
		for k, v := range wantLabels {
			if got := node.Labels[k]; got != v {
				t.Errorf("%s: label %s=%q, want %q", node.Name, k, got, v)
			}
		}
		if got := node.Annotations[harness.KwokNodeAnnotation]; got != "fake" {
			t.Errorf("%s: annotation %s=%q, want fake", node.Name, harness.KwokNodeAnnotation, got)
		}
		for res, want := range map[corev1.ResourceName]string{
			corev1.ResourceCPU: "8", corev1.ResourceMemory: "32Gi", corev1.ResourcePods: "50",
		} {
			q := node.Status.Allocatable[res]
			if q.Cmp(resource.MustParse(want)) != 0 {
				t.Errorf("%s: allocatable %s = %s, want %s", node.Name, res, q.String(), want)
			}
		}
	}

	got, err := cp.Client.CoreV1().Nodes().Get(ctx, "unmanaged", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Its taint may be gone too: the node lifecycle controller derives the
	// NoSchedule taints from conditions, and this node has none yet.
	if harness.NodeReady(got) || len(got.Status.Conditions) != 0 {
		t.Errorf("node without the kwok annotation got conditions: %+v", got.Status.Conditions)
	}
}

func hasNotReadyTaint(node *corev1.Node) bool {
	for _, taint := range node.Spec.Taints {
		if taint.Key == "node.kubernetes.io/not-ready" {
			return true
		}
	}
	return false
}

func TestDeploymentPodsRunOnKwokNodes(t *testing.T) {
	ctx, ns := setup(t)
	nodes, err := cp.CreateNodes(ctx, 2, harness.NodeSpec{NamePrefix: "deploy"})
	if err != nil {
		t.Fatal(err)
	}
	names := nodeNames(nodes)

	tests := []struct {
		name string
		// manual: pods name a scheduler nobody runs and the test binds them
		// through pods/binding; otherwise kube-scheduler places them.
		manual bool
	}{
		{name: "kube-scheduler"},
		{name: "binding-subresource", manual: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := harness.WorkloadSpec{
				Namespace:    ns,
				Name:         tc.name,
				Replicas:     4,
				NodeSelector: nodeSetSelector("deploy"),
			}
			if tc.manual {
				spec.SchedulerName = "manual-binding"
			}
			if _, err := cp.CreateDeployment(ctx, spec); err != nil {
				t.Fatal(err)
			}
			var assignment map[string]string
			if tc.manual {
				assignment, err = cp.BindPendingPods(ctx, ns, spec.Selector(), 4, names)
				if err != nil {
					t.Fatal(err)
				}
			}
			pods, err := cp.WaitForPodsRunning(ctx, ns, spec.Selector(), 4)
			if err != nil {
				t.Fatal(err)
			}
			_, podNet, _ := net.ParseCIDR("10.0.0.0/16")
			for _, pod := range pods {
				if pod.Spec.NodeName != names[0] && pod.Spec.NodeName != names[1] {
					t.Errorf("pod %s on %q, want one of %v", pod.Name, pod.Spec.NodeName, names)
				}
				if tc.manual && assignment[pod.Name] != pod.Spec.NodeName {
					t.Errorf("pod %s on %q, bound to %q", pod.Name, pod.Spec.NodeName, assignment[pod.Name])
				}
				if ip := net.ParseIP(pod.Status.PodIP); ip == nil || !podNet.Contains(ip) {
					t.Errorf("pod %s has pod IP %q, want one in %s", pod.Name, pod.Status.PodIP, podNet)
				}
			}
		})
	}
}

func TestStatefulSetAndDaemonSet(t *testing.T) {
	ctx, ns := setup(t)
	if _, err := cp.CreateNodes(ctx, 3, harness.NodeSpec{NamePrefix: "sets"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		create func(harness.WorkloadSpec) error
		spec   harness.WorkloadSpec
		want   int
	}{
		{
			name: "statefulset",
			create: func(s harness.WorkloadSpec) error {
				_, err := cp.CreateStatefulSet(context.Background(), s)
				return err
			},
			spec: harness.WorkloadSpec{Name: "sts", Replicas: 3},
			want: 3,
		},
		{
			// One pod per node of the set: the DaemonSet controller reads
			// node labels, and kube-scheduler binds its pods.
			name: "daemonset",
			create: func(s harness.WorkloadSpec) error {
				_, err := cp.CreateDaemonSet(context.Background(), s)
				return err
			},
			spec: harness.WorkloadSpec{Name: "ds"},
			want: 3,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.spec.Namespace = ns
			tc.spec.NodeSelector = nodeSetSelector("sets")
			if err := tc.create(tc.spec); err != nil {
				t.Fatal(err)
			}
			pods, err := cp.WaitForPodsRunning(ctx, ns, tc.spec.Selector(), tc.want)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, p := range pods {
				seen[p.Spec.NodeName] = true
			}
			if tc.name == "daemonset" && len(seen) != 3 {
				t.Errorf("DaemonSet pods on %d distinct nodes, want 3: %v", len(seen), seen)
			}
		})
	}
}

func TestDaemonSetPodsBoundWithoutScheduler(t *testing.T) {
	ctx, ns := setup(t)
	if _, err := cp.CreateNodes(ctx, 2, harness.NodeSpec{NamePrefix: "dsbind"}); err != nil {
		t.Fatal(err)
	}
	spec := harness.WorkloadSpec{Namespace: ns, Name: "ds-manual", SchedulerName: "manual-binding", NodeSelector: nodeSetSelector("dsbind")}
	if _, err := cp.CreateDaemonSet(ctx, spec); err != nil {
		t.Fatal(err)
	}
	assignment, err := cp.BindDaemonSetPods(ctx, ns, spec.Selector(), 2)
	if err != nil {
		t.Fatal(err)
	}
	pods, err := cp.WaitForPodsRunning(ctx, ns, spec.Selector(), 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods {
		if assignment[p.Name] != p.Spec.NodeName {
			t.Errorf("pod %s on %q, want %q", p.Name, p.Spec.NodeName, assignment[p.Name])
		}
	}
}

func TestPDBGovernsEviction(t *testing.T) {
	ctx, ns := setup(t)
	if _, err := cp.CreateNodes(ctx, 2, harness.NodeSpec{NamePrefix: "pdb"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		minAvailable int
		wantAllowed  int32
	}{
		// minAvailable equal to the replica count: the budget allows none.
		{name: "budget-exhausted", minAvailable: 4, wantAllowed: 0},
		// One disruption allowed: the eviction deletes the pod and the
		// ReplicaSet replaces it.
		{name: "budget-allows-one", minAvailable: 3, wantAllowed: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := harness.WorkloadSpec{Namespace: ns, Name: tc.name, Replicas: 4, NodeSelector: nodeSetSelector("pdb")}
			if _, err := cp.CreateDeployment(ctx, spec); err != nil {
				t.Fatal(err)
			}
			pods, err := cp.WaitForPodsRunning(ctx, ns, spec.Selector(), 4)
			if err != nil {
				t.Fatal(err)
			}
			minAvailable := intstr.FromInt32(int32(tc.minAvailable))
			pdb, err := cp.CreatePDB(ctx, harness.PDBSpec{Namespace: ns, Name: tc.name, Selector: spec.PodLabels(), MinAvailable: &minAvailable})
			if err != nil {
				t.Fatal(err)
			}
			// The controller may observe the generation before it has
			// counted the pods; wait for the counts it must reach.
			err = harness.WaitFor(ctx, time.Minute, "PDB counts 4 healthy pods", func(ctx context.Context) (bool, error) {
				got, err := cp.Client.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, tc.name, metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				pdb = got
				return pdb.Status.ObservedGeneration == pdb.Generation && pdb.Status.CurrentHealthy == 4 && pdb.Status.ExpectedPods == 4, nil
			})
			if err != nil {
				t.Fatalf("%v; status %+v", err, pdb.Status)
			}
			if pdb.Status.DisruptionsAllowed != tc.wantAllowed || pdb.Status.DesiredHealthy != int32(tc.minAvailable) {
				t.Fatalf("PDB status %+v, want disruptionsAllowed %d, desiredHealthy %d", pdb.Status, tc.wantAllowed, tc.minAvailable)
			}

			victim := pods[0]
			err = cp.Evict(ctx, ns, victim.Name)
			if tc.wantAllowed == 0 {
				var status apierrors.APIStatus
				if !errors.As(err, &status) || status.Status().Code != http.StatusTooManyRequests {
					t.Fatalf("eviction of %s: got %v, want HTTP 429", victim.Name, err)
				}
				// A refused eviction must leave the pod alone.
				got, err := cp.Client.CoreV1().Pods(ns).Get(ctx, victim.Name, metav1.GetOptions{})
				if err != nil || got.DeletionTimestamp != nil || got.UID != victim.UID {
					t.Fatalf("refused eviction touched pod %s: %v %v", victim.Name, err, got.DeletionTimestamp)
				}
				return
			}
			if err != nil {
				t.Fatalf("eviction of %s with a budget of 1: %v", victim.Name, err)
			}
			err = harness.WaitFor(ctx, time.Minute, "evicted pod "+victim.Name+" to disappear", func(ctx context.Context) (bool, error) {
				_, err := cp.Client.CoreV1().Pods(ns).Get(ctx, victim.Name, metav1.GetOptions{})
				if apierrors.IsNotFound(err) {
					return true, nil
				}
				return false, err
			})
			if err != nil {
				t.Fatal(err)
			}
			after, err := cp.WaitForPodsRunning(ctx, ns, spec.Selector(), 4)
			if err != nil {
				t.Fatal(err)
			}
			replaced := 0
			for _, p := range after {
				if p.UID == victim.UID {
					t.Fatalf("evicted pod %s is still listed", victim.Name)
				}
				known := false
				for _, old := range pods {
					known = known || old.UID == p.UID
				}
				if !known {
					replaced++
				}
			}
			if replaced != 1 {
				t.Fatalf("%d new pods after one eviction, want 1", replaced)
			}
		})
	}
}

func TestRBACDeniesEvictionWithoutPermission(t *testing.T) {
	ctx, ns := setup(t)
	const sa = "pod-reader"
	objs := []func() error{
		func() error {
			_, err := cp.Client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cp.Client.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{
				ObjectMeta: metav1.ObjectMeta{Name: sa},
				Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}}},
			}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cp.Client.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: sa},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: sa},
				Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: ns}},
			}, metav1.CreateOptions{})
			return err
		},
	}
	for _, create := range objs {
		if err := create(); err != nil {
			t.Fatal(err)
		}
	}
	// A pod to evict, so that a 403 cannot be a 404 in disguise.
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "target", Namespace: ns},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.invalid/x:1"}}, SchedulerName: "manual-binding"},
	}
	if _, err := cp.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kubeconfig, _, err := cp.ServiceAccountKubeconfig(ctx, ns, sa)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(kubeconfig); err != nil {
		t.Fatalf("kubeconfig not written: %v", err)
	}
	client, err := cp.ServiceAccountClient(ctx, ns, sa)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		call func() error
		// wantCode 0 means success.
		wantCode int32
	}{
		{name: "list pods allowed", call: func() error {
			_, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			return err
		}},
		{name: "get pod allowed", call: func() error {
			_, err := client.CoreV1().Pods(ns).Get(ctx, "target", metav1.GetOptions{})
			return err
		}},
		{name: "evict forbidden", wantCode: http.StatusForbidden, call: func() error {
			return client.PolicyV1().Evictions(ns).Evict(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "target", Namespace: ns}})
		}},
		{name: "delete pod forbidden", wantCode: http.StatusForbidden, call: func() error {
			return client.CoreV1().Pods(ns).Delete(ctx, "target", metav1.DeleteOptions{})
		}},
		{name: "list pods in another namespace forbidden", wantCode: http.StatusForbidden, call: func() error {
			_, err := client.CoreV1().Pods(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{})
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if tc.wantCode == 0 {
				if err != nil {
					t.Fatalf("got %v, want success", err)
				}
				return
			}
			var status apierrors.APIStatus
			if !errors.As(err, &status) || status.Status().Code != tc.wantCode {
				t.Fatalf("got %v, want HTTP %d", err, tc.wantCode)
			}
		})
	}
}

func TestAPIServerRejectsInvalidObjects(t *testing.T) {
	ctx, ns := setup(t)
	validPod := func(name string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.invalid/x:1"}}, SchedulerName: "manual-binding"},
		}
	}
	minAvailable := intstr.FromInt32(1)
	tests := []struct {
		name    string
		create  func() error
		invalid bool
	}{
		{name: "valid pod accepted", create: func() error {
			_, err := cp.Client.CoreV1().Pods(ns).Create(ctx, validPod("valid"), metav1.CreateOptions{})
			return err
		}},
		{name: "pod name with uppercase and underscore", invalid: true, create: func() error {
			_, err := cp.Client.CoreV1().Pods(ns).Create(ctx, validPod("Invalid_Name"), metav1.CreateOptions{})
			return err
		}},
		{name: "pod without containers", invalid: true, create: func() error {
			p := validPod("no-containers")
			p.Spec.Containers = nil
			_, err := cp.Client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
			return err
		}},
		{name: "pdb with both minAvailable and maxUnavailable", invalid: true, create: func() error {
			_, err := cp.Client.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, &policyv1.PodDisruptionBudget{
				ObjectMeta: metav1.ObjectMeta{Name: "both", Namespace: ns},
				Spec: policyv1.PodDisruptionBudgetSpec{
					Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
					MinAvailable:   &minAvailable,
					MaxUnavailable: &minAvailable,
				},
			}, metav1.CreateOptions{})
			return err
		}},
		{name: "deployment with negative replicas", invalid: true, create: func() error {
			_, err := cp.CreateDeployment(ctx, harness.WorkloadSpec{Namespace: ns, Name: "negative", Replicas: -1})
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.create()
			if !tc.invalid {
				if err != nil {
					t.Fatalf("got %v, want success", err)
				}
				return
			}
			if !apierrors.IsInvalid(err) {
				t.Fatalf("got %v, want 422 Invalid", err)
			}
		})
	}
}

func TestServiceAccountsAndKubeconfigs(t *testing.T) {
	ctx, ns := setup(t)
	// The admin kubeconfig must work on its own, as a product binary would
	// use it.
	if _, err := os.Stat(cp.Kubeconfig); err != nil {
		t.Fatal(err)
	}
	sa, err := cp.Client.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	client, err := cp.ServiceAccountClient(ctx, ns, sa.Name)
	if err != nil {
		t.Fatal(err)
	}
	// Who the API server thinks the token belongs to.
	review, err := client.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "system:serviceaccount:" + ns + ":default"
	if review.Status.UserInfo.Username != want {
		t.Fatalf("token authenticates as %q, want %q", review.Status.UserInfo.Username, want)
	}
}

// TestAPIServerStopAndRestart runs last: the rest of the control plane must
// survive an API server outage, as rebalancer's fault-injection tests expect.
func TestAPIServerStopAndRestart(t *testing.T) {
	ctx, ns := setup(t)
	if _, err := cp.CreateNodes(ctx, 1, harness.NodeSpec{NamePrefix: "restart"}); err != nil {
		t.Fatal(err)
	}
	for _, stop := range []struct {
		name string
		fn   func() error
	}{
		{"graceful", cp.StopAPIServer},
		{"kill", cp.KillAPIServer},
	} {
		t.Run(stop.name, func(t *testing.T) {
			if err := stop.fn(); err != nil {
				t.Fatal(err)
			}
			shortCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
			_, err := cp.Client.CoreV1().Namespaces().Get(shortCtx, ns, metav1.GetOptions{})
			cancel()
			if err == nil {
				t.Fatal("API request succeeded with the API server stopped")
			}
			if err := cp.StartAPIServer(ctx); err != nil {
				t.Fatal(err)
			}
			// Controllers and kwok must have reconnected: a new Deployment
			// gets Running pods.
			spec := harness.WorkloadSpec{Namespace: ns, Name: "after-" + stop.name, Replicas: 2, NodeSelector: nodeSetSelector("restart")}
			if _, err := cp.CreateDeployment(ctx, spec); err != nil {
				t.Fatal(err)
			}
			if _, err := cp.WaitForPodsRunning(ctx, ns, spec.Selector(), 2); err != nil {
				t.Fatal(err)
			}
		})
	}
}
