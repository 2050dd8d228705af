package deploy

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// codePermissions is what `rebalancer rbac COMMAND` prints: the rules the
// code needs cluster-wide and in its own namespace.
type codePermissions struct {
	Cluster   []rbacv1.PolicyRule `json:"cluster"`
	Namespace []rbacv1.PolicyRule `json:"namespace"`
	// RunLease: the rules in the run Lease's namespace (`rbac run` only).
	RunLease *leaseRules `json:"runLease,omitempty"`
}

type leaseRules struct {
	Namespace string              `json:"namespace"`
	Rules     []rbacv1.PolicyRule `json:"rules"`
}

// inNamespace is p with the run Lease's rules moved to namespace, as an
// overlay's namespace: moves them.
func (p codePermissions) inNamespace(namespace string) codePermissions {
	if p.RunLease != nil {
		p.RunLease = &leaseRules{Namespace: namespace, Rules: p.RunLease.Rules}
	}
	return p
}

func rbacOf(t *testing.T, args ...string) codePermissions {
	t.Helper()
	bin := rebalancerBinary(t)
	out, stderr, err := runErr("", nil, bin, append([]string{"rbac"}, args...)...)
	if err != nil {
		t.Fatalf("rebalancer rbac %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	var p codePermissions
	if err := yaml.UnmarshalStrict([]byte(out), &p); err != nil {
		t.Fatalf("rebalancer rbac %s printed what is not a permission list: %v\n%s", strings.Join(args, " "), err, out)
	}
	if len(p.Cluster) == 0 {
		t.Fatalf("rebalancer rbac %s printed no cluster rules:\n%s", strings.Join(args, " "), out)
	}
	return p
}

// grants expands rules into "group resource verb name" grants, so that two
// spellings of the same grant (one rule with two verbs, or two rules)
// compare equal; name is * for a rule that names no object. Rules for URLs
// are reported: neither side uses them.
func grants(t *testing.T, where string, rules []rbacv1.PolicyRule) map[string]bool {
	t.Helper()
	g := map[string]bool{}
	for _, r := range rules {
		if len(r.NonResourceURLs) > 0 {
			t.Errorf("%s: rule %+v names URLs", where, r)
		}
		names := r.ResourceNames
		if len(names) == 0 {
			names = []string{"*"}
		}
		for _, group := range r.APIGroups {
			for _, res := range r.Resources {
				for _, verb := range r.Verbs {
					for _, name := range names {
						g[fmt.Sprintf("%q %s %s %s", group, res, verb, name)] = true
					}
				}
			}
		}
	}
	return g
}

// compareGrants fails for each grant on one side only.
func compareGrants(t *testing.T, where string, rendered, code map[string]bool) {
	t.Helper()
	var extra, missing []string
	for g := range rendered {
		if !code[g] {
			extra = append(extra, g)
		}
	}
	for g := range code {
		if !rendered[g] {
			missing = append(missing, g)
		}
	}
	sort.Strings(extra)
	sort.Strings(missing)
	if len(extra) > 0 {
		t.Errorf("%s grants what the code does not need: %s", where, strings.Join(extra, "; "))
	}
	if len(missing) > 0 {
		t.Errorf("%s lacks what the code needs: %s", where, strings.Join(missing, "; "))
	}
}

func toTyped(t *testing.T, o *unstructured.Unstructured, into any) {
	t.Helper()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, into); err != nil {
		t.Fatalf("%s: %v", key(o), err)
	}
}

// boundRules collects the rules bound to a ServiceAccount, cluster-wide
// (ClusterRoleBindings) and in its namespace (RoleBindings), and records in
// used which roles were reached.
func boundRules(t *testing.T, objs []*unstructured.Unstructured, namespace, sa string, used map[string]bool) (cluster, ns []rbacv1.PolicyRule) {
	t.Helper()
	for _, o := range ofKind(objs, "ClusterRoleBinding") {
		var b rbacv1.ClusterRoleBinding
		toTyped(t, o, &b)
		if boundTo(b.Subjects, namespace, sa) {
			cluster = append(cluster, roleRules(t, objs, b.RoleRef.Kind, b.RoleRef.Name, "", used)...)
		}
	}
	return cluster, rulesIn(t, objs, namespace, namespace, sa, used)
}

// rulesIn collects the rules that RoleBindings of namespace give the
// ServiceAccount saNamespace/sa.
func rulesIn(t *testing.T, objs []*unstructured.Unstructured, namespace, saNamespace, sa string, used map[string]bool) []rbacv1.PolicyRule {
	t.Helper()
	var rules []rbacv1.PolicyRule
	for _, o := range ofKind(objs, "RoleBinding") {
		var b rbacv1.RoleBinding
		toTyped(t, o, &b)
		if o.GetNamespace() != namespace || !boundTo(b.Subjects, saNamespace, sa) {
			continue
		}
		if b.RoleRef.Kind != "Role" {
			t.Errorf("%s binds %s %s: namespace rules belong in a Role", key(o), b.RoleRef.Kind, b.RoleRef.Name)
		}
		rules = append(rules, roleRules(t, objs, b.RoleRef.Kind, b.RoleRef.Name, namespace, used)...)
	}
	return rules
}

func boundTo(subjects []rbacv1.Subject, namespace, sa string) bool {
	for _, s := range subjects {
		if s.Kind == "ServiceAccount" && s.Name == sa && s.Namespace == namespace {
			return true
		}
	}
	return false
}

// roleRules are the rules of the role a binding refers to; namespace is the
// binding's, empty for a ClusterRoleBinding.
func roleRules(t *testing.T, objs []*unstructured.Unstructured, kind, name, namespace string, used map[string]bool) []rbacv1.PolicyRule {
	t.Helper()
	for _, o := range ofKind(objs, kind) {
		if o.GetName() == name && (kind == "ClusterRole" || o.GetNamespace() == namespace) {
			var r rbacv1.ClusterRole // Role has the same rules field
			toTyped(t, o, &r)
			used[key(o)] = true
			return r.Rules
		}
	}
	t.Errorf("a binding refers to %s %s, which is not rendered", kind, name)
	return nil
}

// checkRBAC compares what a rendering grants the ServiceAccount of the
// container with the code's list, and returns the roles it reached.
func checkRBAC(t *testing.T, name string, objs []*unstructured.Unstructured, container string, code codePermissions, used map[string]bool) {
	t.Helper()
	var w *unstructured.Unstructured
	for _, o := range workloads(objs) {
		for _, c := range mustSlice(podSpec(t, o), "containers") {
			if c.(map[string]any)["name"] == container {
				w = o
			}
		}
	}
	if w == nil {
		t.Fatalf("%s: no workload runs container %q", name, container)
	}
	sa, _, _ := unstructured.NestedString(podSpec(t, w), "serviceAccountName")
	cluster, ns := boundRules(t, objs, w.GetNamespace(), sa, used)
	where := fmt.Sprintf("%s: ServiceAccount %s/%s", name, w.GetNamespace(), sa)
	compareGrants(t, where+" cluster-wide", grants(t, where, cluster), grants(t, "the code", code.Cluster))
	nsCode := code.Namespace
	if l := code.RunLease; l != nil && l.Namespace == w.GetNamespace() {
		// Moved by an overlay's namespace: into the ServiceAccount's own.
		nsCode = append(slices.Clone(nsCode), l.Rules...)
	}
	compareGrants(t, where+" in its namespace", grants(t, where, ns), grants(t, "the code", nsCode))
	if l := code.RunLease; l != nil && l.Namespace != w.GetNamespace() {
		lease := rulesIn(t, objs, l.Namespace, w.GetNamespace(), sa, used)
		compareGrants(t, where+" in the run Lease's namespace "+l.Namespace, grants(t, where, lease), grants(t, "the code", l.Rules))
	}
}

func mustSlice(obj map[string]any, path ...string) []any {
	s, _, _ := unstructured.NestedSlice(obj, path...)
	return s
}

// checkNoOtherRoles fails for a rendered role no checked ServiceAccount is
// bound to: a grant nobody compared.
func checkNoOtherRoles(t *testing.T, name string, objs []*unstructured.Unstructured, used map[string]bool) {
	t.Helper()
	for _, o := range append(ofKind(objs, "ClusterRole"), ofKind(objs, "Role")...) {
		if !used[key(o)] {
			t.Errorf("%s: %s is not what any command needs", name, key(o))
		}
	}
}

// TestRunRBACMatchesCode: the chart and the kustomize overlays grant the
// rebalancer's ServiceAccount exactly what `rebalancer rbac run` prints —
// and, with leader election (deployment mode, replicas > 1), exactly what
// `rebalancer rbac run --leader-elect` prints. A rule without a need, or a
// need without a rule, fails.
func TestRunRBACMatchesCode(t *testing.T) {
	plain, elect := rbacOf(t, "run"), rbacOf(t, "run", "--leader-elect")
	for _, c := range []struct {
		name string
		objs []*unstructured.Unstructured
		code codePermissions
	}{
		{"chart defaults (CronJob)", helmTemplate(t, docRelease, docNamespace), plain},
		{"chart, deployment with 1 replica", helmTemplate(t, docRelease, docNamespace, "--set", "mode=deployment"), plain},
		{"chart, deployment with 3 replicas", helmTemplate(t, docRelease, docNamespace, "--set", "mode=deployment,deployment.replicas=3"), elect},
		{"chart, CronJob ignores deployment.replicas", helmTemplate(t, docRelease, docNamespace, "--set", "deployment.replicas=3"), plain},
		{"kustomize/cronjob", kustomizeBuild(t, kustomizeDir(t, "cronjob")), plain},
		{"kustomize/deployment", kustomizeBuild(t, kustomizeDir(t, "deployment")), plain},
	} {
		used := map[string]bool{}
		checkRBAC(t, c.name, c.objs, "rebalancer", c.code, used)
		checkNoOtherRoles(t, c.name, c.objs, used)
	}
}

// TestRunRBACWithMakeBeforeBreakMatchesCode: a policy value that turns
// evictable.makeBeforeBreak on anywhere (globally, for a strategy, in an
// override or for a strategy there) or rbac.makeBeforeBreak, and the
// kustomize component added to an overlay, grant exactly what `rebalancer
// rbac run --make-before-break` prints; a policy that turns it off
// everywhere grants what `rebalancer rbac run` does.
func TestRunRBACWithMakeBeforeBreakMatchesCode(t *testing.T) {
	plain, surge := rbacOf(t, "run"), rbacOf(t, "run", "--make-before-break")
	electSurge := rbacOf(t, "run", "--leader-elect", "--make-before-break")
	overlay := kustomizeOverlay(t, "make-before-break-cronjob", "../cronjob", "../components/make-before-break")
	for _, c := range []struct {
		name string
		objs []*unstructured.Unstructured
		code codePermissions
	}{
		{"chart, policy.evictable", helmTemplate(t, docRelease, docNamespace, "--set", "policy.evictable.makeBeforeBreak=true"), surge},
		{"chart, a strategy's evictable", helmTemplate(t, docRelease, docNamespace,
			"--set", "policy.strategies.RemoveDuplicates.evictable.makeBeforeBreak=true"), surge},
		{"chart, an override's evictable", helmTemplate(t, docRelease, docNamespace,
			"--set-json", `policy.overrides=[{"namespaces":["db"],"evictable":{"makeBeforeBreak":true}}]`), surge},
		{"chart, a strategy's evictable in an override", helmTemplate(t, docRelease, docNamespace,
			"--set-json", `policy.overrides=[{"namespaces":["db"],"strategies":{"RemoveDuplicates":{"evictable":{"makeBeforeBreak":true}}}}]`), surge},
		{"chart, rbac.makeBeforeBreak", helmTemplate(t, docRelease, docNamespace, "--set", "rbac.makeBeforeBreak=true"), surge},
		{"chart, deployment with 3 replicas", helmTemplate(t, docRelease, docNamespace,
			"--set", "mode=deployment,deployment.replicas=3,policy.evictable.makeBeforeBreak=true"), electSurge},
		{"chart, makeBeforeBreak off everywhere", helmTemplate(t, docRelease, docNamespace,
			"--set", "policy.evictable.makeBeforeBreak=false,policy.strategies.RemoveDuplicates.evictable.makeBeforeBreak=false"), plain},
		{"kustomize/cronjob with components/make-before-break", kustomizeBuild(t, overlay), surge},
	} {
		used := map[string]bool{}
		checkRBAC(t, c.name, c.objs, "rebalancer", c.code, used)
		checkNoOtherRoles(t, c.name, c.objs, used)
	}
}

// kustomizeOverlay writes, in the copy of kustomize/, an overlay named name
// of these resources and components (paths from the overlay), as a user
// writes one of their own, and returns its directory.
func kustomizeOverlay(t *testing.T, name, resource string, components ...string) string {
	t.Helper()
	dir := filepath.Join(kustomizeDir(t, ""), name)
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - %s\ncomponents:\n", resource)
	for _, c := range components {
		fmt.Fprintf(&b, "  - %s\n", c)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestExtenderRBACMatchesCode: the extender's ServiceAccount gets exactly
// what `rebalancer rbac extender` prints, in the chart and in kustomize.
func TestExtenderRBACMatchesCode(t *testing.T) {
	run, ext := rbacOf(t, "run"), rbacOf(t, "extender")
	for _, c := range []struct {
		name string
		objs []*unstructured.Unstructured
	}{
		{"chart with the extender", helmTemplate(t, docRelease, docNamespace, "--set", "extender.enabled=true")},
		{"kustomize/extender", kustomizeBuild(t, kustomizeDir(t, "extender"))},
	} {
		used := map[string]bool{}
		checkRBAC(t, c.name, c.objs, "rebalancer", run, used)
		checkRBAC(t, c.name, c.objs, "extender", ext, used)
		checkNoOtherRoles(t, c.name, c.objs, used)
	}
}

// TestSchedulerRBACMatchesCode: with the scheduler, its ServiceAccount gets
// exactly what `rebalancer rbac schedule --leader-elect` prints (the chart
// always elects a leader for it), the chart's uninstall guard exactly what
// `rebalancer rbac scheduler-users` prints, and the rebalancer's own grants
// stay as they were.
func TestSchedulerRBACMatchesCode(t *testing.T) {
	run, sched, guard := rbacOf(t, "run"), rbacOf(t, "schedule", "--leader-elect"), rbacOf(t, "scheduler-users")
	for _, c := range []struct {
		name string
		objs []*unstructured.Unstructured
	}{
		{"chart with the scheduler", helmTemplate(t, docRelease, docNamespace, "--set", "scheduler.enabled=true")},
		{"chart custom", helmTemplate(t, "rb", "ops", "--values", testdata("values-custom.yaml"))},
		{"kustomize/scheduler", kustomizeBuild(t, kustomizeDir(t, "scheduler"))},
	} {
		used := map[string]bool{}
		runCode := run
		if strings.Contains(c.name, "custom") {
			runCode = rbacOf(t, "run", "--leader-elect")
		}
		checkRBAC(t, c.name, c.objs, "rebalancer", runCode, used)
		checkRBAC(t, c.name, c.objs, "scheduler", sched, used)
		// The chart's uninstall guard, a hook kustomize has no equivalent of.
		if strings.HasPrefix(c.name, "chart") {
			checkRBAC(t, c.name, c.objs, "scheduler-users", guard, used)
		}
		checkNoOtherRoles(t, c.name, c.objs, used)
	}
}
