package e2e

import (
	"strings"
	"testing"

	"github.com/kube-rebalancer/rebalancer/planner"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// TestPerRunLimitHoldsAcrossSteps: six web pods piled on one of four nodes,
// a policy that takes at most two pods off a node in the whole run and one
// a step. The dry run plans two moves off the crowded node, one in each of
// two steps, and skips the rest with the per-run limit it reached: a later
// step does not start the count afresh, as the descheduler's
// maxNoOfPodsToEvictPerNode does not.
func TestPerRunLimitHoldsAcrossSteps(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, "perrun", 4, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	web := harness.WorkloadSpec{Name: "web", Replicas: 6, CPU: "500m"}
	f.pile(web, f.nodes[0])
	pol := f.policy("limits: {perRun: {node: 2}, perStep: {node: 1}}\n" + balancing)

	dry := rebalancer(t, "run", "--dry-run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--no-state", "-o", "json")
	if dry.code != 0 {
		t.Fatalf("dry run exited %d", dry.code)
	}
	rep := decode(t, dry)
	if len(rep.Moves) != 2 || rep.Steps() != 2 {
		t.Errorf("%d moves in %d steps, want 2 in 2 (two a run, one a step)", len(rep.Moves), rep.Steps())
	}
	for _, m := range rep.Moves {
		if m.From != f.nodes[0] {
			t.Errorf("move of %s from %s; only %s is crowded", m.Pod, m.From, f.nodes[0])
		}
	}
	want := "per-run limit of 2 evictions from node " + f.nodes[0] + " reached (limits.perRun.node)"
	limited := 0
	for _, s := range rep.Skipped {
		if s.Category == planner.LimitReached {
			limited++
			if !strings.Contains(s.Reason, want) {
				t.Errorf("%s skipped: %s; want %q", s.Pod, s.Reason, want)
			}
		}
	}
	if limited == 0 {
		t.Errorf("no pod skipped for the per-run limit (skips: %v); the fixture has more to move than it allows",
			countBy(rep.Skipped, func(s planner.Skip) string { return string(s.Category) }))
	}
}
