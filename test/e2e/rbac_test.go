package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

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

	perms, printed := rbacOf(t, "run")
	cluster, removed := withoutResource(perms.Cluster, "", "pods/eviction")
	if !removed {
		t.Fatalf("rbac run lists no create on pods/eviction:\n%s", printed)
	}
	kubeconfig, client := serviceAccountWith(t, f, "runner", grants{Cluster: cluster, Namespace: perms.Namespace, RunLease: perms.RunLease})
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

// permission is one verb on one resource that a rule of `rebalancer rbac
// COMMAND` grants: cluster-wide (namespace ""), in the command's own
// namespace (ownNamespace), or in the run Lease's.
type permission struct {
	namespace             string
	group, resource, verb string
	names                 []string
}

// ownNamespace stands for the command's namespace in a permission.
const ownNamespace = "(own)"

func (p permission) String() string {
	s := p.verb + " " + p.resource
	if p.group != "" {
		s += "." + p.group
	}
	if len(p.names) > 0 {
		s += " " + strings.Join(p.names, ",")
	}
	switch p.namespace {
	case "":
		return s
	case ownNamespace:
		return s + " (namespace)"
	}
	return s + " (namespace " + p.namespace + ")"
}

// permissionsOf lists every permission the rules grant, one a verb and a
// resource.
func permissionsOf(g grants) []permission {
	var out []permission
	for _, scope := range []struct {
		rules     []rbacv1.PolicyRule
		namespace string
	}{{g.Cluster, ""}, {g.Namespace, ownNamespace}, {g.runLeaseRules(), g.runLeaseNamespace()}} {
		for _, r := range scope.rules {
			for _, group := range r.APIGroups {
				for _, res := range r.Resources {
					for _, verb := range r.Verbs {
						out = append(out, permission{namespace: scope.namespace, group: group, resource: res, verb: verb, names: r.ResourceNames})
					}
				}
			}
		}
	}
	return out
}

// without returns the grants but p: the rule that grants it keeps its
// other verbs and resources.
func (g grants) without(p permission) grants {
	cut := func(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
		var out []rbacv1.PolicyRule
		for _, r := range rules {
			if !slices.Contains(r.APIGroups, p.group) || !slices.Contains(r.Resources, p.resource) || !slices.Contains(r.Verbs, p.verb) ||
				!slices.Equal(r.ResourceNames, p.names) {
				out = append(out, r)
				continue
			}
			others := r.DeepCopy()
			others.Resources = slices.DeleteFunc(others.Resources, func(s string) bool { return s == p.resource })
			if len(others.Resources) > 0 {
				out = append(out, *others)
			}
			verbs := r.DeepCopy()
			verbs.Resources = []string{p.resource}
			verbs.Verbs = slices.DeleteFunc(verbs.Verbs, func(s string) bool { return s == p.verb })
			if len(verbs.Verbs) > 0 {
				out = append(out, *verbs)
			}
		}
		return out
	}
	out := grants{Cluster: g.Cluster, Namespace: g.Namespace, RunLease: g.RunLease}
	switch p.namespace {
	case "":
		out.Cluster = cut(g.Cluster)
	case ownNamespace:
		out.Namespace = cut(g.Namespace)
	default:
		out.RunLease = &leaseGrants{Namespace: g.RunLease.Namespace, Rules: cut(g.RunLease.Rules)}
	}
	return out
}

// names tells whether output names the permission as missing: in the API
// server's refusal (`cannot list resource "nodes" in API group ""`), or in
// the list a command checks before it starts (`list nodes cluster-wide`).
func (p permission) namedIn(output string) bool {
	refused := fmt.Sprintf("cannot %s resource %q in API group %q", p.verb, p.resource, p.group)
	checked := p.verb + " " + p.resource
	if p.group != "" {
		checked += "." + p.group
	}
	// klog quotes a structured value's quotes.
	quoted := strings.ReplaceAll(refused, `"`, `\"`)
	return strings.Contains(output, refused) || strings.Contains(output, quoted) ||
		strings.Contains(output, "missing permission(s): ") && strings.Contains(output, checked+" ")
}

// TestEveryRuleIsNeeded runs each command that talks to the API server as
// a ServiceAccount granted all that `rebalancer rbac COMMAND` lists but one
// permission, for each permission in turn, and checks that the command
// fails (exit code 1) with a message that names the permission it lacks;
// with all of them it succeeds. The rules are read from the command, so a
// rule added later is tested too.
//
// `run` uses each permission where the test makes it: a state ConfigMap
// and a Lease exist for the updates, none for the creates, a policy that
// balances on metrics.k8s.io for its rules. Without the permission to
// read metrics or to record events, a run still evicts: it says so in its
// log, in the API server's words, and the test asks that of it.
// `schedule` checks before it starts what it cannot work without (list,
// watch), and so does leader election, of `run` and `schedule`, for its
// Lease (with --leader-elect, the test covers the Lease rules alone); a binding, a status or an event it may not write is
// refused request by request (TestBackoffRetriesAFailedBinding), so the
// test covers its list and watch rules. The extender stops at its first
// refused list or watch.
func TestEveryRuleIsNeeded(t *testing.T) {
	cp := sharedControlPlane(t)
	ctx := t.Context()
	f := newFixture(t, cp, "everyrule", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	// Enough to move for every run that evicts: RemoveDuplicates and
	// LowNodeUtilization both find more moves after each.
	f.pile(harness.WorkloadSpec{Name: "web", Replicas: 10, CPU: "400m"}, f.nodes[0])
	state := f.ns + "/rebalancer-state"
	requests := f.policy("limits: {total: 1}\n" + balancing)
	usage := f.policy(`limits: {total: 1}
strategies:
  LowNodeUtilization:
    thresholds: {cpu: 20}
    targetThresholds: {cpu: 50}
    metricsUtilization: {source: KubernetesMetrics}
`)
	// reportedOnly are the permissions without which a run goes on, and
	// logs the refusal.
	reportedOnly := map[string]bool{"metrics.k8s.io nodes": true, "metrics.k8s.io pods": true, " events": true}

	// exitOf runs a daemon until it exits, or for long enough to show it
	// runs, and returns its exit code (-1: still running) and log.
	exitOf := func(t *testing.T, args ...string) (int, string) {
		d := startRebalancer(t, args...)
		select {
		case <-d.done:
			return d.cmd.ProcessState.ExitCode(), d.stderr.String()
		case <-time.After(15 * time.Second):
			return -1, d.stderr.String()
		}
	}
	cleanState := func(t *testing.T) {
		cms := cp.Client.CoreV1().ConfigMaps(f.ns)
		if err := cms.Delete(ctx, "rebalancer-state", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		leases := cp.Client.CoordinationV1().Leases(f.ns)
		list, err := leases.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range list.Items {
			if err := leases.Delete(ctx, l.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
		}
		// The cluster's run Lease: free, as a run long gone left it.
		err = cp.Client.CoordinationV1().Leases(runLeaseNamespace).Delete(ctx, runLease, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
	}

	// With --leader-elect: the election's Lease, in the command's namespace.
	leasesOnly := func(p permission) bool { return p.resource != "leases" || p.namespace != ownNamespace }
	commands := []struct {
		// command, and the flags that change what it needs.
		command string
		flags   []string
		// run runs the command lacking p (none: lacking nothing), after
		// making what p is needed for, and returns its exit code and log.
		run func(t *testing.T, kubeconfig string, p *permission) (int, string)
		// skip tells the permissions the test does not exercise.
		skip func(permission) bool
		// ok is the exit code with every permission.
		ok int
	}{
		{command: "run", run: func(t *testing.T, kubeconfig string, p *permission) (int, string) {
			cleanState(t)
			pol := requests
			if p != nil && p.group == "metrics.k8s.io" {
				pol = usage
			}
			if p != nil && p.verb == "update" {
				// An earlier run's objects, for this run to update.
				switch p.resource {
				case "configmaps":
					writeState(t, cp, f.ns, map[string]string{"evictions.json": "[]"})
				case "leases":
					long := metav1.NewMicroTime(time.Now().Add(-time.Hour))
					ns := p.namespace
					if ns == ownNamespace {
						ns = f.ns
					}
					_, err := cp.Client.CoordinationV1().Leases(ns).Create(ctx, &coordinationv1.Lease{
						ObjectMeta: metav1.ObjectMeta{Name: p.names[0]},
						Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("a-run-long-gone"), LeaseDurationSeconds: ptr.To[int32](30),
							AcquireTime: &long, RenewTime: &long},
					}, metav1.CreateOptions{})
					if err != nil {
						t.Fatal(err)
					}
				}
			}
			r := rebalancer(t, "run", "--kubeconfig", kubeconfig, "--policy", pol, "--state-configmap", state)
			return r.code, r.stderr
		}},
		{command: "run", flags: []string{"--leader-elect"}, run: func(t *testing.T, kubeconfig string, _ *permission) (int, string) {
			cleanState(t)
			r := rebalancer(t, "run", "--kubeconfig", kubeconfig, "--policy", requests, "--state-configmap", state,
				"--leader-elect", "--leader-elect-namespace", f.ns)
			return r.code, r.stderr
		}, skip: leasesOnly},
		{command: "extender", run: func(t *testing.T, kubeconfig string, _ *permission) (int, string) {
			// An API server that streams a watch's initial list needs no
			// list permission of client-go's informers; one that does not
			// (older, or with the feature off) is listed: as that one.
			t.Setenv("KUBE_FEATURE_WatchListClient", "false")
			return exitOf(t, "extender", "--kubeconfig", kubeconfig, "--listen", "127.0.0.1:0", "--state-configmap", state)
		}, ok: -1},
		{command: "schedule", run: func(t *testing.T, kubeconfig string, _ *permission) (int, string) {
			return exitOf(t, "schedule", "--kubeconfig", kubeconfig, "--scheduler-name", "e2e-"+f.ns, "--state-configmap", state)
		}, skip: func(p permission) bool { return p.verb != "list" && p.verb != "watch" }, ok: -1},
		{command: "schedule", flags: []string{"--leader-elect"}, run: func(t *testing.T, kubeconfig string, _ *permission) (int, string) {
			cleanState(t)
			return exitOf(t, "schedule", "--kubeconfig", kubeconfig, "--scheduler-name", "e2e-"+f.ns, "--state-configmap", state,
				"--leader-elect", "--leader-elect-namespace", f.ns)
		}, skip: leasesOnly, ok: -1},
		{command: "scheduler-users", run: func(t *testing.T, kubeconfig string, _ *permission) (int, string) {
			r := rebalancer(t, "scheduler-users", "--kubeconfig", kubeconfig, "--scheduler-name", "e2e-"+f.ns)
			return r.code, r.stderr
		}},
	}
	sa := 0
	for _, c := range commands {
		all, printed := rbacOf(t, append([]string{c.command}, c.flags...)...)
		name := strings.Join(append([]string{c.command}, c.flags...), " ")
		t.Run(name+" with every rule", func(t *testing.T) {
			sa++
			kubeconfig, _ := serviceAccountWith(t, f, fmt.Sprintf("sa-%d", sa), all)
			if code, log := c.run(t, kubeconfig, nil); code != c.ok {
				t.Errorf("exit code %d, want %d (-1: still running):\n%s", code, c.ok, clip(log))
			}
		})
		for _, p := range permissionsOf(all) {
			if c.skip != nil && c.skip(p) {
				continue
			}
			t.Run(name+" without "+p.String(), func(t *testing.T) {
				sa++
				kubeconfig, client := serviceAccountWith(t, f, fmt.Sprintf("sa-%d", sa), all.without(p))
				attrs := authorizationv1.ResourceAttributes{Verb: p.verb, Group: p.group}
				attrs.Resource, attrs.Subresource, _ = strings.Cut(p.resource, "/")
				attrs.Namespace = p.namespace
				if p.namespace == ownNamespace {
					attrs.Namespace = f.ns
				}
				if len(p.names) > 0 {
					attrs.Name = p.names[0]
				}
				if ok, err := allowed(ctx, client, attrs); err != nil || ok {
					t.Fatalf("the ServiceAccount may %s (%v, %v); the test needs it not to:\n%s", p, ok, err, printed)
				}
				code, log := c.run(t, kubeconfig, &p)
				if !p.namedIn(log) {
					t.Errorf("the log does not name %s as missing:\n%s", p, clip(log))
				}
				if reported := c.command == "run" && reportedOnly[p.group+" "+p.resource]; !reported && code != 1 {
					t.Errorf("exit code %d, want 1 (-1: still running)", code)
				}
			})
		}
	}
}

// TestRunWithoutEventPermission runs a cycle as a ServiceAccount granted
// everything `rebalancer rbac run` lists except create on events: the
// evictions happen and the run exits 0, but it does not report plain
// success: the report, the log and the metrics say how many events were
// lost, and that the permission is missing.
func TestRunWithoutEventPermission(t *testing.T) {
	cp := sharedControlPlane(t)
	ctx := t.Context()
	f := newFixture(t, cp, "noevents", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	web := harness.WorkloadSpec{Name: "web", Replicas: 6, CPU: "500m"}
	f.pile(web, f.nodes[0])

	perms, printed := rbacOf(t, "run")
	cluster, removed := withoutResource(perms.Cluster, "", "events")
	if !removed {
		t.Fatalf("rbac run lists no create on events:\n%s", printed)
	}
	perms.Cluster = cluster
	kubeconfig, client := serviceAccountWith(t, f, "runner", perms)
	if ok, err := allowed(ctx, client, authorizationv1.ResourceAttributes{Namespace: f.ns, Verb: "create", Resource: "events"}); err != nil || ok {
		t.Fatalf("the ServiceAccount may create events (%v, %v); the test needs it not to", ok, err)
	}

	metrics := filepath.Join(t.TempDir(), "rebalancer.prom")
	r := rebalancer(t, "run", "--kubeconfig", kubeconfig, "--policy", f.policy("limits: {total: 2}\n"+balancing),
		"--state-configmap", f.ns+"/rebalancer-state", "--metrics-file", metrics, "-o", "json")
	if r.code != 0 {
		t.Errorf("exit code %d, want 0: the evictions happened", r.code)
	}
	rep := decode(t, r)
	evicted := rep.Summary.Results[evictor.Evicted]
	if evicted == 0 {
		t.Fatalf("nothing evicted; the test needs evictions whose events are lost")
	}
	lost := rep.EventsLost
	if lost == nil || lost.Lost != evicted || lost.Reasons[evictor.LostForbidden] != evicted || !strings.Contains(lost.Why, "lacks create on events") {
		t.Errorf("report's eventsLost = %+v, want %d lost for want of create on events", lost, evicted)
	}
	if !strings.Contains(r.stderr, "Events were lost") || !strings.Contains(r.stderr, "lacks create on events") {
		t.Errorf("the log does not say that events were lost, and why")
	}
	prom, err := os.ReadFile(metrics)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(`rebalancer_last_cycle_events_lost{reason="forbidden"} %d`, evicted); !strings.Contains(string(prom), want+"\n") {
		t.Errorf("metrics lack %q:\n%s", want, prom)
	}
	if evs := rebalancerEvents(t, cp, f.ns); len(evs) > 0 {
		t.Errorf("%d events recorded although create on events was not granted", len(evs))
	}
}
