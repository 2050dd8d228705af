package e2e

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// The run Lease every run that evicts takes by default: one per cluster.
const (
	runLeaseNamespace = "kube-system"
	runLease          = "rebalancer-run-lock"
)

// Two runs started together evict at most what the limits allow one run,
// whatever their state settings: the Lease lets one of them work, and the
// other exits 0 at once saying who holds it. Their API rate is held low so
// that each run lasts seconds and the two really overlap.
func TestOverlappingRunsEvictWithinTheLimits(t *testing.T) {
	cp := sharedControlPlane(t)
	for _, c := range []struct {
		name   string
		states func(ns string) [2][]string
	}{
		{"overlap-same", func(ns string) [2][]string {
			return [2][]string{{"--state-configmap", ns + "/rebalancer-state"}, {"--state-configmap", ns + "/rebalancer-state"}}
		}},
		// A laptop run with no state beside one with a state of its own:
		// neither knows the other's evictions.
		{"overlap-mixed", func(ns string) [2][]string {
			return [2][]string{{"--no-state"}, {"--state-configmap", ns + "/other-state"}}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, cp, c.name, 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
			web := harness.WorkloadSpec{Name: "web", Replicas: 8, CPU: "500m"}
			f.pile(web, f.nodes[0])
			// No cooldown: without the Lease, each run would evict 2.
			pol := f.policy("cooldown: 0s\nlimits: {total: 2}\n" + balancing)
			states := c.states(f.ns)

			var (
				wg      sync.WaitGroup
				results [2]*result
				errs    [2]error
			)
			for i := range results {
				wg.Go(func() {
					args := append([]string{"run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--qps", "4", "--burst", "1", "-o", "json"}, states[i]...)
					results[i], errs[i] = execRebalancer(t, false, args...)
				})
			}
			wg.Wait()
			evicted, waited := 0, 0
			for i, r := range results {
				if errs[i] != nil {
					t.Fatal(errs[i])
				}
				if r.code != 0 {
					t.Errorf("run %d exited %d, want 0", i, r.code)
				}
				if strings.Contains(r.stderr, "Another run is under way; this one does nothing") {
					waited++
					if r.stdout != "" {
						t.Errorf("the run that found the Lease held printed a report:\n%s", r.stdout)
					}
					continue
				}
				evicted += decode(t, r).Summary.Results[evictor.Evicted]
			}
			if waited != 1 {
				t.Errorf("%d of the two runs found the Lease held, want 1: they did not take turns", waited)
			}
			if events := len(rebalancerEvents(t, cp, f.ns)); evicted > 2 || events > 2 || evicted == 0 {
				t.Errorf("the two runs evicted %d pods (%d events), want 1 or 2: limits.total is 2", evicted, events)
			}
			lease, err := cp.Client.CoordinationV1().Leases(runLeaseNamespace).Get(t.Context(), runLease, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if h := ptr.Deref(lease.Spec.HolderIdentity, ""); h != "" {
				t.Errorf("the Lease is still held by %q after both runs ended, want it released", h)
			}
		})
	}
}

// holdRunLease makes the cluster's run Lease look held by another run,
// renewed now, until the test ends.
func holdRunLease(t *testing.T, cp *harness.ControlPlane, holder string, since time.Time) *coordinationv1.Lease {
	t.Helper()
	leases := cp.Client.CoordinationV1().Leases(runLeaseNamespace)
	spec := coordinationv1.LeaseSpec{
		HolderIdentity:       ptr.To(holder),
		LeaseDurationSeconds: ptr.To[int32](3600),
		AcquireTime:          &metav1.MicroTime{Time: since},
		RenewTime:            &metav1.MicroTime{Time: time.Now()},
	}
	lease, err := leases.Get(t.Context(), runLease, metav1.GetOptions{})
	if err == nil {
		lease.Spec = spec
		lease, err = leases.Update(t.Context(), lease, metav1.UpdateOptions{})
	} else {
		lease, err = leases.Create(t.Context(), &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: runLease}, Spec: spec}, metav1.CreateOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
	// The Lease is every test's: leave none held behind.
	t.Cleanup(func() {
		_ = leases.Delete(context.WithoutCancel(t.Context()), runLease, metav1.DeleteOptions{})
	})
	return lease
}

// A Lease another run renews makes every run that would evict do nothing
// and say who holds it and since when, whatever its state settings: with the
// state the CronJob shares, with none, with another one. A Lease whose
// holder stopped renewing it (a crashed run) is taken over.
func TestRunLeaseOfAnotherRun(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, "leased", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	web := harness.WorkloadSpec{Name: "web", Replicas: 6, CPU: "500m"}
	before := f.pile(web, f.nodes[0])
	pol := f.policy("limits: {total: 2}\n" + balancing)
	state := f.ns + "/rebalancer-state"

	since := time.Now().Add(-time.Minute).Truncate(time.Second)
	lease := holdRunLease(t, cp, "rebalancer-29123456-x7k2p_1", since)
	for _, states := range [][]string{
		{"--state-configmap", state},
		{"--no-state"},
		{"--state-configmap", f.ns + "/other-state"},
	} {
		r := rebalancer(t, append([]string{"run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "-o", "json"}, states...)...)
		if r.code != 0 {
			t.Errorf("%v: exit code %d, want 0", states, r.code)
		}
		for _, want := range []string{"Another run is under way", `lease="` + runLeaseNamespace + "/" + runLease + `"`,
			`holder="rebalancer-29123456-x7k2p_1"`, `since="` + since.UTC().Format(time.RFC3339) + `"`} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%v: stderr does not say %s", states, want)
			}
		}
		if problems := unchanged(before, pods(t, cp, f.ns, "")); len(problems) > 0 {
			t.Fatalf("%v: pods changed while another run held the Lease: %s", states, strings.Join(problems, "; "))
		}
	}

	// The holder crashed: it renewed last an hour and a minute ago.
	lease.Spec.RenewTime = &metav1.MicroTime{Time: time.Now().Add(-time.Hour - time.Minute)}
	if _, err := cp.Client.CoordinationV1().Leases(runLeaseNamespace).Update(t.Context(), lease, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--no-state", "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit code %d, want 0", r.code)
	}
	if n := decode(t, r).Summary.Results[evictor.Evicted]; n != 2 {
		t.Errorf("the run after the crashed one evicted %d pods, want 2", n)
	}
}

// A run whose identity may not take the run Lease evicts nothing: it fails
// as a missing permission does (exit 1), naming the Lease and the verb.
func TestRunWithoutLeasePermission(t *testing.T) {
	cp := sharedControlPlane(t)
	ctx := t.Context()
	f := newFixture(t, cp, "nolease", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	web := harness.WorkloadSpec{Name: "web", Replicas: 6, CPU: "500m"}
	before := f.pile(web, f.nodes[0])

	perms, printed := rbacOf(t, "run")
	if perms.RunLease == nil || perms.RunLease.Namespace != runLeaseNamespace {
		t.Fatalf("rbac run lists no rules for the run Lease in %s:\n%s", runLeaseNamespace, printed)
	}
	perms.RunLease = nil
	kubeconfig, client := serviceAccountWith(t, f, "runner", perms)
	if ok, err := allowed(ctx, client, authorizationv1.ResourceAttributes{Namespace: runLeaseNamespace, Verb: "get",
		Group: "coordination.k8s.io", Resource: "leases", Name: runLease}); err != nil || ok {
		t.Fatalf("the ServiceAccount may get the run Lease (%v, %v); the test needs it not to", ok, err)
	}

	for _, states := range [][]string{{"--state-configmap", f.ns + "/rebalancer-state"}, {"--no-state"}} {
		r := rebalancer(t, append([]string{"run", "--kubeconfig", kubeconfig, "--policy", f.policy(balancing), "-o", "json"}, states...)...)
		if r.code != 1 {
			t.Errorf("%v: exit code %d, want 1", states, r.code)
		}
		msg := errorLine(r)
		for _, want := range []string{runLeaseNamespace + "/" + runLease, "forbidden", "lacks get on leases", "nothing was evicted"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%v: error %q does not say %q", states, msg, want)
			}
		}
		if r.stdout != "" {
			t.Errorf("%v: a run that could not take the Lease printed a report:\n%s", states, r.stdout)
		}
	}
	if problems := unchanged(before, pods(t, cp, f.ns, web.Selector())); len(problems) > 0 {
		t.Errorf("pods disturbed: %s", strings.Join(problems, "; "))
	}
	if evs := rebalancerEvents(t, cp, f.ns); len(evs) > 0 {
		t.Errorf("%d events recorded although nothing was evicted", len(evs))
	}
}
