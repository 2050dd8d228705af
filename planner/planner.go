package planner

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"

	// The built-in strategies, registered for every program that plans.
	_ "github.com/kube-rebalancer/rebalancer/strategies"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// Planner plans cycles under one policy.
type Planner struct {
	Policy *policy.Policy
	// Placer decides where replacements go: the scheduler engine.
	Placer engine.Placer
	// History holds the evictions of earlier cycles, for the policy's
	// cooldown.
	History []cluster.Eviction
	// Observations holds the counts of consecutive observations of earlier
	// runs (Plan.Observations of the last one).
	Observations []cluster.Observation
	// NoCache makes the planner and the strategies work out every answer
	// afresh instead of keeping it for the cycle: the pods' steady verdicts, a
	// sibling's "fits nowhere", the strategies' tables. Plans must be the
	// same either way; the engine has its own switch (engine.Engine).
	NoCache bool
	// StrategyTime, when set, is told how long each run of a strategy
	// took, for metrics; nothing the plan holds depends on it.
	StrategyTime func(strategy string, took time.Duration)
}

// Plan computes the plan of one cycle. snap is not changed: the moves are
// applied to a fork of it.
func (pl *Planner) Plan(snap *cluster.Snapshot) *Plan {
	c := pl.newCycle(snap)
	in := &framework.Cycle{Snapshot: c.snap, Policy: pl.Policy, Placer: pl.Placer, Mover: c, NoCache: pl.NoCache, Earlier: pl.Observations}
	// Before any rule or move: an observation is of the cluster as read.
	for _, name := range pl.Policy.Enabled() {
		if o, ok := framework.Get(name).(framework.Observer); ok {
			o.Observe(in)
		}
	}
	c.plan.Observations = in.Observations()
	c.guard = framework.NewGuard(in)
	c.runRounds(in)
	if c.Exhausted() {
		c.plan.Stopped = fmt.Sprintf("limits.total reached (%d evictions): the rest waits for the next cycle", *pl.Policy.Limits.Total)
	}
	c.plan.Nodes = pl.usage(snap, c.snap)
	for _, n := range in.Notes() {
		c.plan.Notes = append(c.plan.Notes, Note{Strategy: n.Strategy, Node: n.Node, Text: n.Text})
	}
	c.plan.Notes = append(c.plan.Notes, c.strategyNotes(snap, c.plan.Notes)...)
	if n := pl.pendingNote(snap, len(c.plan.Placements)); n != nil {
		c.plan.Notes = append(c.plan.Notes, *n)
	}
	c.plan.Usage = pl.usageSummary(snap)
	return c.plan
}

func (pl *Planner) newCycle(snap *cluster.Snapshot) *cycle {
	return &cycle{
		planner:        pl,
		snap:           snap.Fork(),
		counts:         newCounts(pl.Policy.HasPerRunLimits()),
		limits:         newLimits(pl.Policy),
		budgets:        newBudgets(implicitBudgetsOf(pl.Policy)),
		step:           1,
		moved:          make(map[*cluster.Pod]bool),
		steadyVerdicts: make(map[string]*cluster.PodTable[int32]),
		reports:        make(map[string]int),
		nodes:          newNodeFacts(pl.Policy, snap),
		skips:          newSkips(pl.Policy.Enabled()),
		plan:           &Plan{At: snap.Now, Moves: []Move{}, Skipped: []Skip{}, Predicted: pl.Policy.Replacements == policy.ReplacementsPredicted},
		recent:         recentEvictions(pl.History, snap, pl.Policy.Cooldown.Duration),
	}
}

// cycle is the planner's state during one Plan call; it is the
// framework.Mover the strategies talk to.
type cycle struct {
	planner *Planner
	snap    *cluster.Snapshot
	counts  *counts
	limits  *limits
	budgets *budgets
	// step is the current step of the plan, from 1: the moves of a step
	// are made together, and the next step waits until their replacements
	// are Ready and the budgets are back.
	step  int
	moved map[*cluster.Pod]bool
	skips *skips
	plan  *Plan
	// recent holds, per workload, its latest eviction within the cooldown.
	recent map[cluster.Workload]time.Time
	// guard, when set, is checked on every target.
	guard framework.Guard
	// lastNoFit is the last placement that found no node.
	lastNoFit noFit
	// reports counts, per strategy, the pods it proposed or skipped.
	reports map[string]int
	// nodes holds, by node index, what the acceptor asks of every node a
	// placement looks at and no move changes, so that it reads no node
	// object.
	nodes []nodeFacts
	// steadyVerdicts keeps, per strategy, each pod's steady verdicts as an
	// index in refusals, or -1 for a pod that nothing keeps in place: a
	// table of indexes is a ninth of the size of one of verdicts, and most
	// pods pass.
	steadyVerdicts map[string]*cluster.PodTable[int32]
	refusals       []steadyVerdicts
}

// nodeFacts is what a target's acceptor needs to know of a node.
type nodeFacts struct {
	// selected: the policy's nodeSelector selects the node.
	selected bool
	// noExecute: the node has a NoExecute taint.
	noExecute bool
}

func newNodeFacts(pol *policy.Policy, snap *cluster.Snapshot) []nodeFacts {
	facts := make([]nodeFacts, len(snap.Nodes()))
	for i, n := range snap.Nodes() {
		facts[i].selected = pol.SelectsNode(n.Labels)
		for _, t := range n.Spec.Taints {
			facts[i].noExecute = facts[i].noExecute || t.Effect == corev1.TaintEffectNoExecute
		}
	}
	return facts
}

// recentEvictions returns the latest eviction time of each workload evicted
// within the cooldown; none when the cooldown is off. An eviction recorded
// but not carried out (its pod is still there) does not count, and one
// dated in the future counts as made now.
func recentEvictions(history []cluster.Eviction, snap *cluster.Snapshot, cooldown time.Duration) map[cluster.Workload]time.Time {
	recent := make(map[cluster.Workload]time.Time)
	if cooldown <= 0 {
		return recent
	}
	undone := make(map[string]bool)
	for _, e := range cluster.NotCarriedOut(history, snap) {
		undone[e.ID()] = true
	}
	since := snap.Now.Add(-cooldown)
	for _, e := range history {
		at := e.At
		if at.After(snap.Now) {
			at = snap.Now
		}
		if e.Workload.IsZero() || !at.After(since) || undone[e.ID()] {
			continue
		}
		if at.After(recent[e.Workload]) {
			recent[e.Workload] = at
		}
	}
	return recent
}

// Exhausted implements framework.Mover.
func (c *cycle) Exhausted() bool {
	t := c.planner.Policy.Limits.Total
	return t != nil && c.counts.total >= *t
}

// Evictable implements framework.Mover.
func (c *cycle) Evictable(strategy string, p *cluster.Pod) string {
	_, why := c.check(strategy, p)
	return why
}

// check returns why the strategy cannot evict the pod now, with its
// category: the strategy's evictable settings say which pods it may move.
// Of its reasons only the pod's own move and the per-run limits change
// with the moves; the others are found once a strategy and pod (steadyVerdictsOf).
func (c *cycle) check(strategy string, p *cluster.Pod) (Category, string) {
	if c.moved[p] {
		return "", "already moved this cycle"
	}
	s := c.steadyVerdictsOf(strategy, p)
	if s.first.why != "" {
		return s.first.cat, s.first.why
	}
	if why := c.counts.totalReached(c.planner.Policy.Limits); why != "" {
		return LimitReached, why
	}
	if why := c.runExceeded(p); why != "" {
		return LimitReached, why
	}
	return s.last.cat, s.last.why
}

// Move implements framework.Mover.
func (c *cycle) Move(strategy string, cand framework.Candidate) framework.Outcome {
	c.reports[strategy]++
	p := cand.Pod
	if cat, why := c.check(strategy, p); why != "" {
		// A pod already moved has no category: it is not news.
		logSkipped(strategy, p, cat, why)
		return framework.Outcome{Reason: why, Category: cat}
	}
	from := c.boundNode(p)
	m := Move{Pod: p.Key, UID: p.UID, Workload: p.Workload.String(), Strategy: strategy, Reason: cand.Reason}
	if from != nil {
		m.From = from.Name
	}
	if needsPlace(p) && c.plan.Predicted && from != nil {
		res, cat, why := c.predict(p, from, cand.Accept)
		if why != "" {
			logSkipped(strategy, p, cat, why)
			return framework.Outcome{Reason: why, Category: cat}
		}
		m.To, m.Score, m.RunnerUp, m.RunnerUpScore = res.Node, res.Score, res.RunnerUp, res.RunnerUpScore
	} else if needsPlace(p) {
		res := c.placeCandidate(strategy, p, from, cand)
		if res.Node == "" {
			why := "no other node can take it: " + res.Message
			logSkipped(strategy, p, NoFit, why)
			return framework.Outcome{Reason: why, Category: NoFit}
		}
		m.To, m.Score, m.RunnerUp, m.RunnerUpScore = res.Node, res.Score, res.RunnerUp, res.RunnerUpScore
	} else {
		c.snap.Remove(p)
	}
	if c.steadyVerdictsOf(strategy, p).surge {
		m.Surge = true
		m.Step = c.admit(p, from, true)
	} else {
		m.Step = c.admit(p, from, false)
		m.Budget = c.budgets.applied(c.snap, p)
	}
	c.moved[p] = true
	c.plan.Moves = append(c.plan.Moves, m)
	logMoved(strategy, p, &m)
	return framework.Outcome{Moved: true, To: m.To}
}

// implicitBudgetsOf returns the resolver of the implicit budgets, nil when
// the policy turns them off.
func implicitBudgetsOf(pol *policy.Policy) *implicitBudgets {
	if !pol.UsesImplicitBudgets() {
		return nil
	}
	return newImplicitBudgets()
}

// admit counts a move against the limits and, unless it is a surge, which
// disrupts nothing, the budgets, in the current step when they allow it
// there, else in a new one, and returns its step. Steps only grow: a move
// may rely on the room an earlier move made.
func (c *cycle) admit(p *cluster.Pod, from *cluster.Node, surge bool) int {
	pol := c.planner.Policy
	s := pol.For(p.Namespace, c.snap.NamespaceLabels(p.Namespace))
	if c.stepExceeded(c.counts, s, p, from) != "" || !surge && c.budgets.blocked(c.snap, p) != "" {
		c.step++
		c.counts.newStep()
		c.budgets = c.budgets.next()
	}
	c.counts.add(p, from)
	if !surge {
		c.budgets.spend(c.snap, p)
	}
	return c.step
}

// boundNode returns the node the pod is bound to: the one it holds
// resources on, or, for a finished pod, which holds none, the one its
// spec.nodeName names. A move's from and the per-node limit count it so,
// as the descheduler counts a node's evictions by spec.nodeName.
func (c *cycle) boundNode(p *cluster.Pod) *cluster.Node {
	if n := c.snap.NodeOf(p); n != nil || !p.IsTerminal() || p.Spec.NodeName == "" {
		return n
	}
	return c.snap.Node(p.Spec.NodeName)
}

// needsPlace reports whether the eviction creates a pod that needs a node:
// a controller replaces a live pod; nothing replaces a bare pod, and a
// finished pod's controller has already replaced it.
func needsPlace(p *cluster.Pod) bool {
	return p.Controller() != nil && !p.IsTerminal()
}

// place asks the engine where the replacement would go, with the pod taken
// off its node, and applies the answer to the working snapshot. When no
// node fits, the pod goes back where it was.
func (c *cycle) place(p *cluster.Pod, from *cluster.Node, accept func(*cluster.Node) (bool, string), targets []int32) engine.Result {
	opts := engine.Options{Accept: c.acceptor(p, accept), AcceptOnly: targets}
	if from != nil {
		opts.Exclude = []string{from.Name}
		c.snap.Remove(p)
	}
	res := c.planner.Placer.Schedule(c.snap, p, opts)
	target := res.Node
	if target == "" && from != nil {
		target = from.Name
	}
	if target != "" {
		if err := c.snap.Place(p, target); err != nil {
			// The engine only returns nodes of the snapshot.
			panic(err)
		}
	}
	return res
}

// acceptor is the condition every target of p's move must meet beyond the
// scheduler's filters: one of the policy's nodes, one the pod may stay on,
// the guard, the strategy's own condition.
func (c *cycle) acceptor(p *cluster.Pod, accept func(*cluster.Node) (bool, string)) func(*cluster.Node) (bool, string) {
	return func(n *cluster.Node) (bool, string) {
		facts := c.nodes[n.Index()]
		if !facts.selected {
			return false, "node(s) were not selected by the policy's nodeSelector"
		}
		// kube-scheduler admits the pod there, and the taint manager
		// evicts it when its tolerationSeconds are up: a move that only
		// postpones a disruption.
		if facts.noExecute {
			if _, _, temporary := cluster.TemporaryNoExecute(p.Pod, n.Node); temporary {
				return false, reasonTemporaryNoExecute
			}
		}
		if c.guard != nil {
			if ok, why := c.guard(p, n); !ok {
				return false, why
			}
		}
		if accept != nil {
			return accept(n)
		}
		return true, ""
	}
}

// reasonTemporaryNoExecute counts, in a move's no-fit message, the nodes
// whose NoExecute taint the pod tolerates only for a while.
const reasonTemporaryNoExecute = "node(s) had a NoExecute taint that the pod tolerates only for its tolerationSeconds, after which the taint manager would evict it"

// Reserve implements framework.Reserver: the pending pod takes its room
// in the working snapshot, and no strategy moves it this cycle.
func (c *cycle) Reserve(strategy string, p *cluster.Pod, node, reason string) bool {
	if c.snap.NodeOf(p) != nil || c.snap.Node(node) == nil {
		return false
	}
	if err := c.snap.Place(p, node); err != nil {
		return false
	}
	c.moved[p] = true
	c.plan.Placements = append(c.plan.Placements, Placement{Pod: p.Key, Node: node, Strategy: strategy, Reason: reason})
	return true
}

// Skip implements framework.Mover.
func (c *cycle) Skip(strategy string, p *cluster.Pod, o framework.Outcome) {
	c.reports[strategy]++
	cat, why := o.Category, o.Reason
	if cat == "" && why == "" {
		cat, why = c.check(strategy, p)
	}
	if cat == "" {
		return // moved, or evictable after all: nothing keeps it in place
	}
	c.skips.put(strategy, Skip{Pod: p.Key, Strategy: strategy, Category: cat, Reason: why})
}

// Count implements framework.Counter.
func (c *cycle) Count(strategy string, p *cluster.Pod, o framework.Outcome) {
	c.reports[strategy]++
	cat, why := o.Category, o.Reason
	if cat == "" && why == "" {
		cat, why = c.check(strategy, p)
	}
	if cat == "" {
		return
	}
	c.skips.count(strategy, p, cat, why)
}

// usage reports the utilization of the policy's nodes before and after.
func (pl *Planner) usage(before, after *cluster.Snapshot) []NodeUsage {
	resources := []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods}
	for _, name := range pl.thresholdResources() {
		if r := corev1.ResourceName(name); name != policy.MetricResource && !slices.Contains(resources, r) {
			resources = append(resources, r)
		}
	}
	var out []NodeUsage
	for _, n := range before.Nodes() {
		if !pl.Policy.SelectsNode(n.Labels) {
			continue
		}
		u := NodeUsage{Name: n.Name, Unschedulable: n.Unschedulable(), Before: percents(n, resources), After: percents(after.Node(n.Name), resources)}
		if len(pl.metricsSources()) > 0 {
			u.UsageBefore, u.UsageAfter = usagePercents(n), usagePercents(after.Node(n.Name))
		}
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// thresholdResources lists every resource the utilization strategies have a
// threshold for, their node pools' included, so that the node report shows
// what they balance.
func (pl *Planner) thresholdResources() []string {
	st := pl.Policy.Global().Strategies
	var all []policy.ResourceThresholds
	for _, n := range st.List() {
		if u, ok := n.Args.(policy.UtilizationThresholds); ok {
			all = append(all, u.UtilizationThresholds()...)
		}
	}
	var names []string
	for _, t := range all {
		for _, n := range t.Names() {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return names
}

func percents(n *cluster.Node, resources []corev1.ResourceName) map[string]float64 {
	m := make(map[string]float64, len(resources))
	for _, r := range resources {
		v := n.Utilization(r)
		if math.IsInf(v, 0) {
			v = -1 // JSON has no infinity; a node that offers none of a requested resource
		}
		m[string(r)] = math.Round(v*10) / 10
	}
	return m
}
