package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// TestCrammedDeploymentIsBalancedInOneRun: eight replicas crammed onto one
// of four nodes, under a PodDisruptionBudget of maxUnavailable 1. One run
// plans a step per allowed disruption, waits after each until the
// replacement is Ready and the budget is back, and so balances the
// Deployment in one run with no eviction refused: afterwards no node holds
// more than its share, and a dry run finds nothing left to move.
func TestCrammedDeploymentIsBalancedInOneRun(t *testing.T) {
	c := newCrammed(t, "paced")
	cp, f, web := c.cp, c.f, c.web
	ctx := t.Context()
	one := intstr.FromInt32(1)
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "web"},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &one,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": web.Name}}},
	}
	if _, err := cp.Client.PolicyV1().PodDisruptionBudgets(f.ns).Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The disruption controller fills the status.
	err := harness.WaitFor(ctx, time.Minute, "the budget to allow one disruption", func(ctx context.Context) (bool, error) {
		p, err := cp.Client.PolicyV1().PodDisruptionBudgets(f.ns).Get(ctx, "web", metav1.GetOptions{})
		return err == nil && p.Status.DisruptionsAllowed == 1 && p.Status.ObservedGeneration == p.Generation, err
	})
	if err != nil {
		t.Fatal(err)
	}

	pol := f.policy("strategies:\n  RemoveDuplicates: {}\n")
	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", c.state,
		"--step-timeout", "90s", "-o", "json")
	if r.code != 0 {
		t.Fatalf("run exited %d", r.code)
	}
	rep := decode(t, r)
	// 8 pods on 4 nodes: 2 a node, so 6 move, one a step.
	if len(rep.Moves) != 6 || rep.Steps() != 6 {
		t.Errorf("%d moves in %d steps, want 6 in 6 (one disruption at a time)", len(rep.Moves), rep.Steps())
	}
	for _, m := range rep.Moves {
		if m.Result != evictor.Evicted {
			t.Errorf("step %d, %s: %s (%s); want every eviction made, none refused", m.Step, m.Pod, m.Result, m.Message)
		}
	}
	if strings.Contains(rep.Stopped, "settled") {
		t.Errorf("the run stopped: %s", rep.Stopped)
	}

	err = harness.WaitFor(ctx, 2*time.Minute, "eight web pods Running", func(ctx context.Context) (bool, error) {
		n := 0
		for _, p := range pods(t, cp, f.ns, web.Selector()) {
			if p.DeletionTimestamp == nil && p.Spec.NodeName != "" && cluster.IsReady(&p) {
				n++
			}
		}
		return n == 8, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	perNode := map[string]int{}
	for _, p := range pods(t, cp, f.ns, web.Selector()) {
		if p.DeletionTimestamp == nil {
			perNode[p.Spec.NodeName]++
		}
	}
	for n, count := range perNode {
		if count > 2 {
			t.Errorf("node %s holds %d web pods after the run, want at most 2: %v", n, count, perNode)
		}
	}
	dry := rebalancer(t, "run", "--dry-run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "-o", "json")
	if moves := decode(t, dry).Moves; dry.code != 0 || len(moves) != 0 {
		t.Errorf("a dry run after the run plans %d moves (exit %d), want none", len(moves), dry.code)
	}
}

// TestMaxDurationBoundsTheRun: a run slowed by its API rate, whose first
// step's replacement never becomes Ready (no scheduler binds it), stops
// waiting at --max-duration and says what it was waiting for, in its own
// words rather than the rate limiter's; the process ends soon after.
func TestMaxDurationBoundsTheRun(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, "bounded", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	web := harness.WorkloadSpec{Name: "web", Replicas: 6, CPU: "500m"}
	f.pile(web, f.nodes[0])
	// One eviction off the crowded node a step.
	pol := f.policy("limits: {perNode: 1}\n" + balancing)
	const bound = 12 * time.Second
	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--no-state", "--qps", "2", "--burst", "1",
		"--max-duration", bound.String(), "-o", "json")
	if r.code != 0 {
		t.Errorf("exit code %d, want 0: a bound reached is a stop, not a failure", r.code)
	}
	rep := decode(t, r)
	if rep.Steps() < 2 || rep.Summary.Results[evictor.Evicted] == 0 {
		t.Fatalf("%d steps, %d evicted; the test needs a first step made and more to wait for", rep.Steps(), rep.Summary.Results[evictor.Evicted])
	}
	want := "step 1 had not settled when --max-duration 12s reached (waiting for: ReplicaSet " + f.ns + "/"
	if !strings.Contains(rep.Stopped, want) || strings.Contains(rep.Stopped, "rate limiter") {
		t.Errorf("stopped %q, want it to say %q…", rep.Stopped, want)
	}
	// After the bound: releasing the Lease, the event already written.
	if slack := 6 * time.Second; r.wall() > bound+slack {
		t.Errorf("the run took %s with --max-duration %s", r.wall().Round(time.Millisecond), bound)
	}
}
