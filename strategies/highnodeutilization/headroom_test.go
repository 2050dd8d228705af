package highnodeutilization_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/planner"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

// cpuAfter returns "node cpu%" of the receiving nodes once the plan's moves
// are done.
func cpuAfter(t *testing.T, objs cluster.Objects, p *planner.Plan, nodes ...string) []string {
	t.Helper()
	after := strategytest.AfterPlan(t, objs, p)
	var out []string
	for _, name := range nodes {
		n := after.Node(name)
		out = append(out, fmt.Sprintf("%s %g%%", name, cluster.Percent(n.Requested.MilliCPU, n.Allocatable.MilliCPU)))
	}
	return out
}

func notesAndSkips(p *planner.Plan) (notes, skips []string) {
	for _, n := range p.Notes {
		notes = append(notes, n.Node+": "+n.Text)
	}
	for _, s := range p.Skipped {
		skips = append(skips, fmt.Sprintf("%s %s: %s", s.Pod, s.Category, s.Reason))
	}
	return notes, skips
}

// Four nodes hold 41 small pods between them, below 30% of their CPU each;
// three others are busier. Packed without a ceiling, the 41 pods fill two
// of them to 100% and the third to 89%; with targetThresholds cpu: 85, the
// receiving nodes keep 15% for bursts and daemons. The last pods of f go
// to g, the most used node left below the ceiling, which then stays.
func TestHighNodeUtilizationTargetThresholds(t *testing.T) {
	hundreds := func(n int) []string { return slices.Repeat([]string{"100m"}, n) } // 2.5% each
	objs := strategytest.Objects(
		[]any{ct.Node("a"), ct.Node("b"), ct.Node("c"), ct.Node("d"), ct.Node("e"), ct.Node("f"), ct.Node("g")},
		strategytest.CPUPods("a", "big-a", "2600m"), // 65%
		strategytest.CPUPods("b", "big-b", "2500m"), // 62.5%
		strategytest.CPUPods("c", "big-c", "2360m"), // 59%
		strategytest.CPUPods("d", "web-d", hundreds(10)...),
		strategytest.CPUPods("e", "web-e", hundreds(10)...),
		strategytest.CPUPods("f", "web-f", hundreds(10)...),
		strategytest.CPUPods("g", "web-g", hundreds(11)...), // 27.5%
	)
	const hnu = "strategies:\n  HighNodeUtilization:\n    thresholds: {cpu: 30}\n"
	tests := []struct {
		name   string
		policy string
		moved  int
		after  []string
		notes  []string
		skips  []string
	}{
		{
			name:   "without targetThresholds the receiving nodes fill up to what they hold",
			policy: hnu,
			moved:  41,
			after:  []string{"a 100%", "b 100%", "c 89%", "g 0%"},
		},
		{
			name:   "targetThresholds: no receiving node ends above 85%",
			policy: hnu + "    targetThresholds: {cpu: 85}\n",
			moved:  30,
			after:  []string{"a 85%", "b 85%", "c 84%", "g 35%"},
			notes:  []string{"g: not emptied: shop/web-f-f-7: already moved this cycle"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := strategytest.Plan(t, strategytest.Build(t, objs), tt.policy)
			if len(p.Moves) != tt.moved {
				t.Errorf("%d moves, want %d", len(p.Moves), tt.moved)
			}
			strategytest.Equal(t, "cpu after", cpuAfter(t, objs, p, "a", "b", "c", "g"), tt.after)
			notes, skips := notesAndSkips(p)
			strategytest.Equal(t, "notes", notes, tt.notes)
			strategytest.Equal(t, "skips", skips, tt.skips)
		})
	}
}

// n2 can take 1.4 CPU below 85%: n1's pod of 1.5 CPU would fit, not under
// the ceiling, and n1 stays.
func TestHighNodeUtilizationTargetThresholdsKeepANode(t *testing.T) {
	objs := strategytest.Objects(
		[]any{ct.Node("n1"), ct.Node("n2")},
		strategytest.CPUPods("n1", "a", "1500m"), // 37.5%
		strategytest.CPUPods("n2", "b", "2"),     // 50%: not under
	)
	const hnu = "strategies:\n  HighNodeUtilization:\n    thresholds: {cpu: 50}\n"
	p := strategytest.Plan(t, strategytest.Build(t, objs), hnu)
	strategytest.Equal(t, "moves without targetThresholds", strategytest.Moves(p), []string{"shop/a-n1-0 n1→n2"})

	p = strategytest.Plan(t, strategytest.Build(t, objs), hnu+"    targetThresholds: {cpu: 85}\n")
	strategytest.Equal(t, "moves", strategytest.Moves(p), nil)
	notes, skips := notesAndSkips(p)
	const why = "fits on no node HighNodeUtilization packs onto without going above its targetThresholds"
	strategytest.Equal(t, "notes", notes, []string{"n1: not emptied: shop/a-n1-0 " + why})
	strategytest.Equal(t, "skips", skips, []string{"shop/a-n1-0 no-fit: " + why})
}

// n1 at 10% is 10 points below the 20% threshold, n2 at 17.5% only 2.5:
// with minImprovement 5, n1 is emptied and n2, whose pods would cost as
// many restarts for the same node freed, stays.
func TestHighNodeUtilizationMinImprovement(t *testing.T) {
	objs := strategytest.Objects(
		[]any{ct.Node("n1"), ct.Node("n2"), ct.Node("n3")},
		strategytest.CPUPods("n1", "a", "400m"), // 10%
		strategytest.CPUPods("n2", "b", "700m"), // 17.5%
		strategytest.CPUPods("n3", "c", "2"),    // 50%
	)
	const hnu = "strategies:\n  HighNodeUtilization:\n    thresholds: {cpu: 20}\n"
	p := strategytest.Plan(t, strategytest.Build(t, objs), hnu)
	strategytest.Equal(t, "moves without minImprovement", strategytest.Moves(p), []string{"shop/a-n1-0 n1→n3", "shop/b-n2-0 n2→n3"})

	p = strategytest.Plan(t, strategytest.Build(t, objs), hnu+"    minImprovement: 5\n")
	strategytest.Equal(t, "moves", strategytest.Moves(p), []string{"shop/a-n1-0 n1→n3"})
	notes, skips := notesAndSkips(p)
	const why = "cpu at 17.5% is 2.5 points below its threshold of 20%; minImprovement is 5"
	strategytest.Equal(t, "notes", notes, []string{"n2: not emptied: " + why})
	strategytest.Equal(t, "skips", skips, []string{"shop/b-n2-0 below-min-improvement: would empty n2: " + why})
}

// The ceiling holds for every strategy's moves: RemoveDuplicates may not
// send a replica to n2, which it would take to 65%.
func TestHighNodeUtilizationTargetThresholdsGuardOtherStrategies(t *testing.T) {
	objs := strategytest.Objects(
		[]any{ct.Node("n1"), ct.Node("n2"), ct.Node("n3")},
		strategytest.CPUPods("n1", "base", "2"), // 50%
		strategytest.Pods("n1", "web", 3, "400m"),
		strategytest.CPUPods("n2", "busy", "2200m"), // 55%
		strategytest.CPUPods("n3", "calm", "1200m"), // 30%
	)
	const policy = "strategies:\n  RemoveDuplicates: {}\n  HighNodeUtilization:\n    thresholds: {cpu: 20}\n"
	p := strategytest.Plan(t, strategytest.Build(t, objs), policy)
	strategytest.Equal(t, "moves without targetThresholds", strategytest.Moves(p), []string{"shop/web-n1-0 n1→n3", "shop/web-n1-1 n1→n2"})

	p = strategytest.Plan(t, strategytest.Build(t, objs), policy+"    targetThresholds: {cpu: 60}\n")
	strategytest.Equal(t, "moves", strategytest.Moves(p), []string{"shop/web-n1-0 n1→n3"})
	_, skips := notesAndSkips(p)
	if len(skips) != 1 || !strings.Contains(skips[0], "shop/web-n1-1 no-fit: ") || !strings.Contains(skips[0], "1 node(s) would go above HighNodeUtilization's target utilization") {
		t.Errorf("skips %q, want web-n1-1 with n2 above HighNodeUtilization's target utilization", skips)
	}
}
