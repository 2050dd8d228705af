package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// TestRunWithoutEvictionPermission runs a cycle as a ServiceAccount granted
// everything `rebalancer rbac run` lists except create on pods/eviction: it
// reads and plans, then fails with exit 1 and a message naming
// pods/eviction, and evicts nothing.
func TestRunWithoutEvictionPermission(t *testing.T) {
	cp := sharedControlPlane(t)
	ctx := t.Context()
	f := newFixture(t, cp, "rbac", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	web := harness.WorkloadSpec{Name: "web", Replicas: 6, CPU: "500m"}
	before := f.pile(web, f.nodes[0])

	out := rebalancer(t, "rbac", "run")
	if out.code != 0 {
		t.Fatalf("rbac run exited %d", out.code)
	}
	var perms struct {
		Cluster   []rbacv1.PolicyRule `json:"cluster"`
		Namespace []rbacv1.PolicyRule `json:"namespace"`
	}
	if err := yaml.UnmarshalStrict([]byte(out.stdout), &perms); err != nil {
		t.Fatalf("rbac run output: %v", err)
	}
	cluster, removed := withoutResource(perms.Cluster, "", "pods/eviction")
	if !removed {
		t.Fatalf("rbac run lists no create on pods/eviction:\n%s", out.stdout)
	}

	const sa = "runner"
	name := "e2e-rbac-no-eviction"
	create := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("create %s: %v", what, err)
		}
	}
	_, err := cp.Client.CoreV1().ServiceAccounts(f.ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{})
	create("ServiceAccount", err)
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: f.ns, Name: sa}}
	_, err = cp.Client.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: cluster}, metav1.CreateOptions{})
	create("ClusterRole", err)
	_, err = cp.Client.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   subjects,
	}, metav1.CreateOptions{})
	create("ClusterRoleBinding", err)
	t.Cleanup(func() {
		// Cluster-scoped: they would outlive the test's namespace.
		ctx := t.Context()
		_ = cp.Client.RbacV1().ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{})
		_ = cp.Client.RbacV1().ClusterRoles().Delete(ctx, name, metav1.DeleteOptions{})
	})
	_, err = cp.Client.RbacV1().Roles(f.ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: perms.Namespace}, metav1.CreateOptions{})
	create("Role", err)
	_, err = cp.Client.RbacV1().RoleBindings(f.ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   subjects,
	}, metav1.CreateOptions{})
	create("RoleBinding", err)

	kubeconfig, cfg, err := cp.ServiceAccountKubeconfig(ctx, f.ns, sa)
	if err != nil {
		t.Fatal(err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// RBAC is enforced from the API server's informer cache: wait until the
	// grants are in effect, so the run fails for the missing rule alone.
	err = harness.WaitFor(ctx, time.Minute, "the ServiceAccount's grants to take effect", func(ctx context.Context) (bool, error) {
		listPods, err := allowed(ctx, client, authorizationv1.ResourceAttributes{Verb: "list", Resource: "pods"})
		if err != nil {
			return false, err
		}
		writeState, err := allowed(ctx, client, authorizationv1.ResourceAttributes{Namespace: f.ns, Verb: "update", Resource: "configmaps"})
		return listPods && writeState, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := allowed(ctx, client, authorizationv1.ResourceAttributes{Namespace: f.ns, Verb: "create", Resource: "pods", Subresource: "eviction"}); err != nil || ok {
		t.Fatalf("the ServiceAccount may create pods/eviction (%v, %v); the test needs it not to", ok, err)
	}

	r := rebalancer(t, "run", "--kubeconfig", kubeconfig, "--policy", f.policy(balancing), "--state-configmap", f.ns+"/rebalancer-state", "-o", "json")
	if r.code != 1 {
		t.Errorf("exit code %d, want 1", r.code)
	}
	if !strings.Contains(r.stderr, "pods/eviction") || !strings.Contains(r.stderr, "forbidden") {
		t.Errorf("stderr does not say that create on pods/eviction is forbidden:\n%s", r.stderr)
	}
	rep := decode(t, r)
	if len(rep.Moves) == 0 {
		t.Fatalf("no move planned; the run must get as far as evicting for this test to mean anything")
	}
	for i, m := range rep.Moves {
		want := evictor.NotAttempted
		if i == 0 {
			want = evictor.Failed
		}
		if m.Result != want {
			t.Errorf("move %d (%s): %s (%s), want %s: a permission error stops the run", i, m.Pod, m.Result, m.Message, want)
		}
	}
	if problems := unchanged(before, pods(t, cp, f.ns, web.Selector())); len(problems) > 0 {
		t.Errorf("pods disturbed: %s", strings.Join(problems, "; "))
	}
	if evs := rebalancerEvents(t, cp, f.ns); len(evs) > 0 {
		t.Errorf("%d events recorded although nothing was evicted, e.g. %s on %s", len(evs), evs[0].Reason, evs[0].InvolvedObject.Name)
	}
}

// withoutResource returns rules with the resource of group taken out, and
// whether it was there.
func withoutResource(rules []rbacv1.PolicyRule, group, resource string) ([]rbacv1.PolicyRule, bool) {
	var out []rbacv1.PolicyRule
	removed := false
	for _, r := range rules {
		if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) {
			r.Resources = slices.DeleteFunc(slices.Clone(r.Resources), func(s string) bool { return s == resource })
			removed = true
			if len(r.Resources) == 0 {
				continue
			}
		}
		out = append(out, r)
	}
	return out, removed
}

// allowed asks the API server whether the client may do something.
func allowed(ctx context.Context, client kubernetes.Interface, attrs authorizationv1.ResourceAttributes) (bool, error) {
	review, err := client.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attrs},
	}, metav1.CreateOptions{})
	if err != nil {
		return false, fmt.Errorf("access review %+v: %w", attrs, err)
	}
	return review.Status.Allowed, nil
}
