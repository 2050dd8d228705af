package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

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
			if p.DeletionTimestamp == nil && p.Spec.NodeName != "" && podIsReady(p.Status.Conditions) {
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

func podIsReady(conds []corev1.PodCondition) bool {
	for _, c := range conds {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// TestPacedRunStopsAtItsStepTimeout: a plan of two steps whose first
// step's replacement never becomes Ready (nothing binds this fixture's
// pods) stops after --step-timeout, cleanly: exit 0, the second move not
// attempted, and the report and the last-run record say why.
func TestPacedRunStopsAtItsStepTimeout(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, "paced-stop", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	f.pile(harness.WorkloadSpec{Name: "web", Replicas: 4, CPU: "500m"}, f.nodes[0])
	// 4 pods on 3 nodes: 2 a node, so 2 move, one a step (perNode 1).
	pol := f.policy("limits: {perNode: 1}\nstrategies:\n  RemoveDuplicates: {}\n")
	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", f.ns+"/rebalancer-state",
		"--step-timeout", "5s", "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit code %d, want 0: a run that stops at a bound is not a failure", r.code)
	}
	rep := decode(t, r)
	const why = "step 1 had not settled within --step-timeout 5s"
	if len(rep.Moves) != 2 || rep.Moves[0].Result != evictor.Evicted || rep.Moves[1].Result != evictor.NotAttempted ||
		!strings.Contains(rep.Moves[1].Message, why) {
		t.Fatalf("moves %+v; want the first evicted and the second not attempted because %s", rep.Moves, why)
	}
	if !strings.Contains(rep.Stopped, why) {
		t.Errorf("report stopped %q, want it to say %q", rep.Stopped, why)
	}
	last := lastRunRecord(t, cp, f.ns)
	if last.Steps != 2 || last.StepsStarted != 1 || !strings.Contains(last.Stopped, why) || !last.Succeeded {
		t.Errorf("last-run record %+v; want 1 of 2 steps started, why, and a success", last)
	}
	if r.wall() > time.Minute {
		t.Errorf("the run took %s; the step timeout is 5s", r.wall())
	}
}
