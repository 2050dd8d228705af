package e2e

import (
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// Two runs started together, sharing a state ConfigMap, evict at most what
// the limits allow one run: the Lease lets one of them work, and the other
// exits 0 at once saying who holds it. Their API rate is held low so that
// each run lasts seconds and the two really overlap.
func TestOverlappingRunsEvictWithinTheLimits(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, "overlap", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	web := harness.WorkloadSpec{Name: "web", Replicas: 8, CPU: "500m"}
	f.pile(web, f.nodes[0])
	// No cooldown: without the Lease, each run would evict 2.
	pol := f.policy("cooldown: 0s\nlimits: {total: 2}\n" + balancing)
	state := f.ns + "/rebalancer-state"

	var (
		wg      sync.WaitGroup
		results [2]*result
		errs    [2]error
	)
	for i := range results {
		wg.Go(func() {
			results[i], errs[i] = execRebalancer(t, false, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol,
				"--state-configmap", state, "--qps", "4", "--burst", "1", "-o", "json")
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
	lease, err := cp.Client.CoordinationV1().Leases(f.ns).Get(t.Context(), "rebalancer-state-lock", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h := ptr.Deref(lease.Spec.HolderIdentity, ""); h != "" {
		t.Errorf("the Lease is still held by %q after both runs ended, want it released", h)
	}
}

// A Lease another run renews makes a run do nothing and say who holds it
// and since when; a Lease whose holder stopped renewing it (a crashed run)
// is taken over.
func TestRunLeaseOfAnotherRun(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, "leased", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	web := harness.WorkloadSpec{Name: "web", Replicas: 6, CPU: "500m"}
	before := f.pile(web, f.nodes[0])
	pol := f.policy("limits: {total: 2}\n" + balancing)
	state := f.ns + "/rebalancer-state"

	since := time.Now().Add(-time.Minute).Truncate(time.Second)
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "rebalancer-state-lock"},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To("rebalancer-29123456-x7k2p_1"),
			LeaseDurationSeconds: ptr.To[int32](3600),
			AcquireTime:          &metav1.MicroTime{Time: since},
			RenewTime:            &metav1.MicroTime{Time: time.Now()},
		},
	}
	lease, err := cp.Client.CoordinationV1().Leases(f.ns).Create(t.Context(), lease, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", state, "-o", "json")
	if r.code != 0 {
		t.Errorf("exit code %d, want 0", r.code)
	}
	for _, want := range []string{"Another run is under way", `holder="rebalancer-29123456-x7k2p_1"`, `since="` + since.UTC().Format(time.RFC3339) + `"`} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not say %s", want)
		}
	}
	if problems := unchanged(before, pods(t, cp, f.ns, "")); len(problems) > 0 {
		t.Errorf("pods changed while another run held the Lease: %s", strings.Join(problems, "; "))
	}

	// The holder crashed: it renewed last an hour and a minute ago.
	lease.Spec.RenewTime = &metav1.MicroTime{Time: time.Now().Add(-time.Hour - time.Minute)}
	if _, err := cp.Client.CoordinationV1().Leases(f.ns).Update(t.Context(), lease, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	r = rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", state, "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit code %d, want 0", r.code)
	}
	if n := decode(t, r).Summary.Results[evictor.Evicted]; n != 2 {
		t.Errorf("the run after the crashed one evicted %d pods, want 2", n)
	}
}
