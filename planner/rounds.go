package planner

import (
	"context"
	"runtime/pprof"
	"strconv"
	"time"

	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// maxRounds bounds the rounds of one cycle. Each round but the last changes
// something (a move, of which there is one per pod at most, or a settled
// guard), so rounds end on their own; the bound only keeps a pathological
// cluster from costing many rounds of failed placements. Two or three are
// the rule.
const maxRounds = 8

// runRounds runs the strategies in order, and again while the cycle
// changes: a later strategy's moves can make room for what an earlier one
// could not do (a balancing move frees a node that a violating pod could not
// go to), and without another round the next cycle would find that work
// left over. A strategy runs again only when something changed since it
// last ran, and not at all when its last run found nothing and no move can
// give it work (framework.Cycle.StaysIdle), so that a round costs only
// what can find new work. What a strategy skipped is what its latest run
// skipped; pods skipped by one strategy and moved by another are not
// reported, and a pod skipped by two is reported once (see skips.list).
func (c *cycle) runRounds(in *framework.Cycle) {
	names := c.planner.Policy.Enabled()
	seen := make(map[string]uint64, len(names))
	idle := make(map[string]bool, len(names))
	for round := 1; round <= maxRounds; round++ {
		start := in.Changes()
		for _, name := range names {
			if c.Exhausted() {
				break
			}
			if at, ran := seen[name]; idle[name] || ran && at == in.Changes() {
				continue // nothing it could see changed since it last looked
			}
			before, reported := len(c.plan.Moves), c.reports[name]
			c.skips.begin(name)
			began := time.Now()
			// A CPU profile (--cpuprofile) tells the strategies and rounds
			// apart by these labels: go tool pprof -tags, or -tagfocus
			// 'round=[2]'.
			pprof.Do(context.Background(), pprof.Labels("strategy", name, "round", strconv.Itoa(round)), func(context.Context) {
				framework.Get(name).Run(in)
			})
			if c.planner.StrategyTime != nil {
				c.planner.StrategyTime(name, time.Since(began))
			}
			c.skips.end(name, c.Exhausted())
			seen[name] = in.Changes()
			idle[name] = c.reports[name] == reported && in.StaysIdle(name)
			klog.V(1).InfoS("Strategy planned", "strategy", name, "round", round, "moves", len(c.plan.Moves)-before,
				"skipped", len(c.skips.byStrategy[name]))
		}
		if in.Changes() == start {
			break
		}
	}
	c.plan.Skipped = c.skipped()
}
