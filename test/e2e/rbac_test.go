package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

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
