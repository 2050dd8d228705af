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
