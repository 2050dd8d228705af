package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// grants are the RBAC rules of `rebalancer rbac COMMAND`.
type grants struct {
	Cluster   []rbacv1.PolicyRule `json:"cluster"`
	Namespace []rbacv1.PolicyRule `json:"namespace"`
	// RunLease: the rules in the run Lease's namespace (`rbac run` only).
	RunLease *leaseGrants `json:"runLease,omitempty"`
}

// leaseGrants are rules in one namespace other than the command's own.
type leaseGrants struct {
	Namespace string              `json:"namespace"`
	Rules     []rbacv1.PolicyRule `json:"rules"`
}

// rbacOf runs `rebalancer rbac` with args and decodes what it prints.
func rbacOf(t *testing.T, args ...string) (grants, string) {
	t.Helper()
	out := rebalancer(t, append([]string{"rbac"}, args...)...)
	if out.code != 0 {
		t.Fatalf("rbac %v exited %d", args, out.code)
	}
	var g grants
	if err := yaml.UnmarshalStrict([]byte(out.stdout), &g); err != nil {
		t.Fatalf("rbac %v output: %v", args, err)
	}
	return g, out.stdout
}

// serviceAccountWith creates a ServiceAccount in the fixture's namespace
// granted g, the cluster rules cluster-wide, the namespace rules in that
// namespace and the run Lease's rules in its namespace, as the chart grants
// them. It waits until the API server
// authorizes with them, and returns a kubeconfig and a client that
// authenticate as it.
func serviceAccountWith(t *testing.T, f *fixture, name string, g grants) (string, kubernetes.Interface) {
	t.Helper()
	ctx, cp := t.Context(), f.cp
	create := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("create %s: %v", what, err)
		}
	}
	_, err := cp.Client.CoreV1().ServiceAccounts(f.ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	create("ServiceAccount", err)
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: f.ns, Name: name}}
	global := "e2e-" + f.ns + "-" + name
	_, err = cp.Client.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: global}, Rules: g.Cluster}, metav1.CreateOptions{})
	create("ClusterRole", err)
	_, err = cp.Client.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: global},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: global},
		Subjects:   subjects,
	}, metav1.CreateOptions{})
	create("ClusterRoleBinding", err)
	t.Cleanup(func() {
		// Cluster-scoped: they would outlive the test's namespace.
		ctx := context.WithoutCancel(t.Context())
		_ = cp.Client.RbacV1().ClusterRoleBindings().Delete(ctx, global, metav1.DeleteOptions{})
		_ = cp.Client.RbacV1().ClusterRoles().Delete(ctx, global, metav1.DeleteOptions{})
	})
	_, err = cp.Client.RbacV1().Roles(f.ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: g.Namespace}, metav1.CreateOptions{})
	create("Role", err)
	_, err = cp.Client.RbacV1().RoleBindings(f.ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   subjects,
	}, metav1.CreateOptions{})
	create("RoleBinding", err)
	if l := g.RunLease; l != nil {
		// Named after the test's namespace: the Lease's namespace is
		// shared by every test.
		_, err = cp.Client.RbacV1().Roles(l.Namespace).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: global}, Rules: l.Rules}, metav1.CreateOptions{})
		create("Role in the run Lease's namespace", err)
		_, err = cp.Client.RbacV1().RoleBindings(l.Namespace).Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: global},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: global},
			Subjects:   subjects,
		}, metav1.CreateOptions{})
		create("RoleBinding in the run Lease's namespace", err)
		t.Cleanup(func() {
			ctx := context.WithoutCancel(t.Context())
			_ = cp.Client.RbacV1().RoleBindings(l.Namespace).Delete(ctx, global, metav1.DeleteOptions{})
			_ = cp.Client.RbacV1().Roles(l.Namespace).Delete(ctx, global, metav1.DeleteOptions{})
		})
	}

	kubeconfig, cfg, err := cp.ServiceAccountKubeconfig(ctx, f.ns, name)
	if err != nil {
		t.Fatal(err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// RBAC is enforced from the API server's informer cache: wait until the
	// grants are in effect, the ClusterRole's and each Role's, so that a
	// command fails for what it lacks alone.
	var probes []authorizationv1.ResourceAttributes
	for _, p := range []struct {
		rules     []rbacv1.PolicyRule
		namespace string
	}{{g.Cluster, ""}, {g.Namespace, f.ns}, {g.runLeaseRules(), g.runLeaseNamespace()}} {
		if len(p.rules) == 0 {
			continue
		}
		r := p.rules[0]
		a := authorizationv1.ResourceAttributes{Namespace: p.namespace, Verb: r.Verbs[0], Group: r.APIGroups[0]}
		a.Resource, a.Subresource, _ = strings.Cut(r.Resources[0], "/")
		if len(r.ResourceNames) > 0 {
			a.Name = r.ResourceNames[0]
		}
		probes = append(probes, a)
	}
	err = harness.WaitFor(ctx, time.Minute, "the ServiceAccount's grants to take effect", func(ctx context.Context) (bool, error) {
		for _, a := range probes {
			if ok, err := allowed(ctx, client, a); !ok || err != nil {
				return false, err
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return kubeconfig, client
}

func (g grants) runLeaseRules() []rbacv1.PolicyRule {
	if g.RunLease == nil {
		return nil
	}
	return g.RunLease.Rules
}

func (g grants) runLeaseNamespace() string {
	if g.RunLease == nil {
		return ""
	}
	return g.RunLease.Namespace
}
