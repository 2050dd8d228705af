package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// TestEvictionDeniedByAdmissionGoesOn: a ValidatingAdmissionPolicy on
// pods/eviction, as Kyverno or Gatekeeper users write them, denies the
// eviction of the first two pods the plan moves: one with reason Forbidden
// (HTTP 403, which RBAC also answers), one without a reason (HTTP 422). The
// run, as a ServiceAccount with exactly what `rebalancer rbac run` lists,
// reports both as denied with the API server's message, evicts the others
// and exits 0: the authorizer said that the permission is there, and the
// SelfSubjectAccessReview that asked it needs no grant of its own.
func TestEvictionDeniedByAdmissionGoesOn(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, "admission", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	web := harness.WorkloadSpec{Name: "web", Replicas: 6, CPU: "500m"}
	before := f.pile(web, f.nodes[0])
	perms, _ := rbacOf(t, "run")
	kubeconfig, _ := serviceAccountWith(t, f, "runner", perms)
	pol := f.policy(balancing)

	plan := rebalancer(t, "run", "--dry-run", "--kubeconfig", kubeconfig, "--policy", pol, "-o", "json")
	if plan.code != 0 {
		t.Fatalf("dry run exited %d", plan.code)
	}
	planned := decode(t, plan).Moves
	if len(planned) < 3 {
		t.Fatalf("%d moves planned; the test needs two to deny and one to evict", len(planned))
	}
	forbidden, invalid := podName(planned[0].Pod), podName(planned[1].Pod)
	denyEvictions(t, cp, f.ns, forbidden, invalid)

	metrics := filepath.Join(t.TempDir(), "rebalancer.prom")
	r := rebalancer(t, "run", "--kubeconfig", kubeconfig, "--policy", pol, "--state-configmap", f.ns+"/rebalancer-state",
		"--metrics-file", metrics, "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit code %d, want 0: a denied eviction concerns its pod alone\n%s", r.code, errorLine(r))
	}
	rep := decode(t, r)
	var evicted []string
	seen := map[string]bool{}
	for _, m := range rep.Moves {
		name := podName(m.Pod)
		seen[name] = true
		switch name {
		case forbidden, invalid:
			// The message is the API server's; the policy's
			// messageExpression names the object it evaluated: for the
			// eviction subresource that is the Eviction, named as the pod.
			want := fmt.Sprintf("eviction of %s denied (object: policy/v1 Eviction %s)", name, name)
			if m.Result != evictor.Denied || !strings.Contains(m.Message, want) || !strings.Contains(m.Message, "ValidatingAdmissionPolicy") {
				t.Errorf("%s: %s (%q), want %s with the API server's message %q", m.Pod, m.Result, m.Message, evictor.Denied, want)
			}
		default:
			if m.Result != evictor.Evicted {
				t.Errorf("%s: %s (%s), want %s: the run goes on after a denial", m.Pod, m.Result, m.Message, evictor.Evicted)
			}
			evicted = append(evicted, name)
		}
	}
	if !seen[forbidden] || !seen[invalid] {
		t.Fatalf("the run did not plan the pods the policy protects (%s, %s): %v", forbidden, invalid, rep.Moves)
	}
	if got := rep.Summary.Results[evictor.Denied]; got != 2 {
		t.Errorf("summary counts %d denied, want 2", got)
	}
	if len(evicted) == 0 {
		t.Errorf("nothing evicted after the denials")
	}

	after := pods(t, cp, f.ns, web.Selector())
	for _, name := range []string{forbidden, invalid} {
		p, ok := after[name]
		if !ok || p.DeletionTimestamp != nil || p.UID != before[name].UID {
			t.Errorf("%s was disturbed although admission denied its eviction", name)
		}
	}
	for _, name := range evicted {
		if p, ok := after[name]; ok && p.DeletionTimestamp == nil {
			t.Errorf("%s is reported evicted and still runs", name)
		}
	}

	denied := map[string]string{}
	for _, ev := range rebalancerEvents(t, cp, f.ns) {
		if ev.Reason == evictor.ReasonDenied {
			denied[ev.InvolvedObject.Name] = ev.Message
		}
	}
	for _, name := range []string{forbidden, invalid} {
		if msg, ok := denied[name]; !ok || !strings.Contains(msg, "ValidatingAdmissionPolicy") {
			t.Errorf("event %s on %s = %q, want one with the API server's message", evictor.ReasonDenied, name, msg)
		}
	}
	prom, err := os.ReadFile(metrics)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(prom), `rebalancer_last_cycle_evictions{result="denied"} 2`) {
		t.Errorf("metrics do not count 2 denied evictions:\n%s", prom)
	}
}

func podName(pod string) string {
	_, name, _ := strings.Cut(pod, "/")
	return name
}

// denyEvictions makes the API server deny the eviction of pod forbidden with
// HTTP 403 (reason Forbidden) and of pod invalid with HTTP 422 (no reason:
// a ValidatingAdmissionPolicy's default), in namespace ns only. It returns
// once both denials are in effect.
func denyEvictions(t *testing.T, cp *harness.ControlPlane, ns, forbidden, invalid string) {
	t.Helper()
	ctx := t.Context()
	name := "e2e-deny-eviction-" + ns
	reason := metav1.StatusReasonForbidden
	// The evaluated object is the request's body, a policy/v1 Eviction named
	// as the pod; the message says so, so the test checks it.
	message := func(pod string) string {
		return fmt.Sprintf(`'eviction of %s denied (object: ' + object.apiVersion + ' ' + object.kind + ' ' + object.metadata.name + ')'`, pod)
	}
	vap := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods/eviction"}},
				}}},
			},
			Validations: []admissionregistrationv1.Validation{
				{Expression: fmt.Sprintf("object.metadata.name != '%s'", forbidden), MessageExpression: message(forbidden), Reason: &reason},
				{Expression: fmt.Sprintf("object.metadata.name != '%s'", invalid), MessageExpression: message(invalid)},
			},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{corev1.LabelMetadataName: ns},
			}},
		},
	}
	admission := cp.Client.AdmissionregistrationV1()
	if _, err := admission.ValidatingAdmissionPolicies().Create(ctx, vap, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admission.ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Cluster-scoped: they would outlive the test's namespace.
		ctx := context.WithoutCancel(t.Context())
		_ = admission.ValidatingAdmissionPolicyBindings().Delete(ctx, name, metav1.DeleteOptions{})
		_ = admission.ValidatingAdmissionPolicies().Delete(ctx, name, metav1.DeleteOptions{})
	})
	// The API server loads policies from an informer: ask with dry-run
	// evictions, which admission judges like real ones, until it denies.
	dryRun := func(ctx context.Context, pod string) error {
		return cp.Client.PolicyV1().Evictions(ns).Evict(ctx, &policyv1.Eviction{
			ObjectMeta:    metav1.ObjectMeta{Namespace: ns, Name: pod},
			DeleteOptions: &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}},
		})
	}
	err := harness.WaitFor(ctx, time.Minute, "the ValidatingAdmissionPolicy to deny evictions", func(ctx context.Context) (bool, error) {
		return apierrors.IsForbidden(dryRun(ctx, forbidden)) && apierrors.IsInvalid(dryRun(ctx, invalid)), nil
	})
	if err != nil {
		t.Fatalf("%v (last answers: %v; %v)", err, dryRun(ctx, forbidden), dryRun(ctx, invalid))
	}
}
