package framework

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
)

// Cycle is one planning cycle as the strategies see it: the working
// snapshot, the policy, the planner, and what the cycle keeps for them.
type Cycle struct {
	// Snapshot is the cycle's working snapshot: the cluster as the moves
	// planned so far leave it.
	Snapshot *cluster.Snapshot
	Policy   *policy.Policy
	// Placer answers fit questions with the same rules that place pods.
	Placer engine.Placer
	Mover  Mover
	// Earlier holds the counts of consecutive observations earlier runs
	// made (see Observe).
	Earlier []cluster.Observation

	observations observations
	settings     map[string]*policy.Settings
	nodes        []*cluster.Node

	// edits counts the changes made to the working snapshot and to the
	// forks strategies simulate on, so that what is derived from placements
	// is recomputed exactly when they change (see View).
	edits uint64
	// changes counts what strategies see change: planned moves, and the
	// guard's view of the cycle (see Changes).
	changes uint64
	// current names the strategy whose candidate the planner is placing.
	current string
	guard   *guard
	// shared holds what the cycle derives for every strategy from what
	// moves do not change; states holds each strategy's own (see Slot).
	shared sharedTables
	states []any
	// NoCache makes every table and kept answer be computed afresh at
	// each use; plans must not change (see planner.Planner.NoCache).
	NoCache bool
	notes   []Note
}

// Note is what a strategy tells the report beside its moves: a node it
// left out, or why it did nothing.
type Note struct {
	Strategy string
	// Node is the node the note is about; empty for the whole strategy.
	Node string
	Text string
}

// Note records a note for the report; the same note is kept once, however
// many rounds the strategy runs.
func (c *Cycle) Note(strategy, node, text string) {
	n := Note{Strategy: strategy, Node: node, Text: text}
	for _, o := range c.notes {
		if o == n {
			return
		}
	}
	c.notes = append(c.notes, n)
}

// Notes returns the notes recorded so far, in the order they were.
func (c *Cycle) Notes() []Note { return c.notes }

// Settings returns the policy settings of a namespace's pods.
func (c *Cycle) Settings(namespace string) *policy.Settings {
	if s, ok := c.settings[namespace]; ok {
		return s
	}
	if c.settings == nil {
		c.settings = make(map[string]*policy.Settings)
	}
	s := c.Policy.For(namespace, c.Snapshot.NamespaceLabels(namespace))
	c.settings[namespace] = s
	return s
}

// Args returns the arguments of the strategy that apply to the pod, or nil
// when the strategy does not apply to it: off for its namespace, not
// selected by the strategy's namespaces or labelSelector, or in a namespace
// the policy leaves alone.
func (c *Cycle) Args(strategy string, p *cluster.Pod) policy.StrategyArgs {
	// Strategies ask for every pod they look at, in every round, and the
	// guard for every node a placement looks at: the answer is kept per
	// group of pods with one namespace and one set of labels, all that it
	// reads of a pod.
	if g := c.podGroup(p); g >= 0 && !c.NoCache {
		byGroup := c.argsByGroup(strategy)
		if e := &byGroup[g]; e.set {
			return e.args
		}
		a := c.podArgs(strategy, p)
		byGroup[g] = groupArgs{set: true, args: a}
		return a
	}
	return c.podArgs(strategy, p)
}

func (c *Cycle) podArgs(strategy string, p *cluster.Pod) policy.StrategyArgs {
	if !c.Policy.AllowsNamespace(p.Namespace) {
		return nil
	}
	a := c.Settings(p.Namespace).Args(strategy)
	if a == nil || !a.CommonArgs().Selects(p.Namespace, p.Labels) {
		return nil
	}
	return a
}

// groupArgs is Args' answer for a group of pods, once asked.
type groupArgs struct {
	set  bool
	args policy.StrategyArgs
}

// podGroup returns the index of the pod's group in the snapshot's
// PodGroups, or -1 for a pod the snapshot does not hold.
func (c *Cycle) podGroup(p *cluster.Pod) int {
	t := &c.shared
	if t.groupOf == nil {
		t.groupOf = make([]int32, len(c.Snapshot.Pods()))
		for i := range t.groupOf {
			t.groupOf[i] = -1
		}
		for g, group := range c.Snapshot.PodGroups().Groups {
			for _, q := range group.Pods {
				if i := q.Index(); i >= 0 && i < len(t.groupOf) {
					t.groupOf[i] = int32(g)
				}
			}
		}
	}
	if i := p.Index(); i >= 0 && i < len(t.groupOf) && c.Snapshot.Pods()[i] == p {
		return int(t.groupOf[i])
	}
	return -1
}

// argsByGroup returns the strategy's answers by pod group; the last
// strategy's are at hand, since a strategy asks about its pods in a row.
func (c *Cycle) argsByGroup(strategy string) []groupArgs {
	t := &c.shared
	if t.lastGroupArgs.byGroup != nil && t.lastGroupArgs.strategy == strategy {
		return t.lastGroupArgs.byGroup
	}
	byGroup, ok := t.groupArgs[strategy]
	if !ok {
		byGroup = make([]groupArgs, len(c.Snapshot.PodGroups().Groups))
		if t.groupArgs == nil {
			t.groupArgs = make(map[string][]groupArgs)
		}
		t.groupArgs[strategy] = byGroup
	}
	t.lastGroupArgs.strategy, t.lastGroupArgs.byGroup = strategy, byGroup
	return byGroup
}

// Nodes returns the nodes the policy's nodeSelector selects, in name order.
func (c *Cycle) Nodes() []*cluster.Node {
	// The snapshot copies a node when an edit touches it: return the
	// current copies, not those of the first call.
	selected := c.Selected()
	out := make([]*cluster.Node, len(selected))
	for i, n := range selected {
		out[i] = c.Snapshot.Node(n.Name)
	}
	return out
}

// Usable says, per node index, whether the node is Ready and selected by
// the policy: one that can give and take pods.
func (c *Cycle) Usable() []bool {
	if c.shared.usable == nil {
		c.shared.usable = make([]bool, len(c.Snapshot.Nodes()))
		for _, n := range c.Selected() {
			c.shared.usable[n.Index()] = n.Ready()
		}
	}
	return c.shared.usable
}

// Selected returns the nodes the policy's nodeSelector selects as they were
// first seen: for what edits do not change (name, index, labels, taints,
// conditions), without copying the list.
func (c *Cycle) Selected() []*cluster.Node {
	if c.nodes == nil {
		c.nodes = []*cluster.Node{}
		for _, n := range c.Snapshot.Nodes() {
			if c.Policy.SelectsNode(n.Labels) {
				c.nodes = append(c.nodes, n)
			}
		}
	}
	return c.nodes
}

// Move proposes a candidate the strategy needs to move, on its own (a pod
// that violates a rule, a pod past its age), and returns the planner's
// answer: a Refusal is recorded as a skipped pod. A strategy that needs k
// pods of a group proposes them through a Need instead.
func (c *Cycle) Move(strategy string, cand Candidate) Outcome {
	o := c.Propose(strategy, cand)
	if !o.Moved && o.Category != "" {
		c.Mover.Skip(strategy, cand.Pod, o)
	}
	return o
}

// Propose proposes a candidate to the planner and records nothing: for a
// pod that is one alternative among several. The edit count changes before
// and after: while the planner places the pod, the pod is off its node, and
// afterwards it may be somewhere else.
func (c *Cycle) Propose(strategy string, cand Candidate) Outcome {
	if c.Done() {
		return Outcome{Reason: "no eviction is possible any more this cycle"}
	}
	if c.guard != nil {
		c.guard.prepare(c, strategy)
	}
	c.edits++
	c.current = strategy
	from := c.Snapshot.NodeOf(cand.Pod)
	o := c.Mover.Move(strategy, cand)
	c.current = ""
	c.edits++
	if o.Moved {
		c.changes++
		c.movedBetween(from, o.To)
	}
	return o
}

// Reserve plans a pending pod onto a node whose room the strategy's moves
// made, and reports whether the planner took it: the pod holds the node's
// room for the rest of the cycle.
func (c *Cycle) Reserve(strategy string, p *cluster.Pod, node, reason string) bool {
	r, ok := c.Mover.(Reserver)
	if !ok {
		return false
	}
	c.edits++
	if !r.Reserve(strategy, p, node, reason) {
		return false
	}
	c.edits++
	c.changes++
	c.movedBetween(nil, node)
	return true
}

// movedBetween tells what keeps per-node state derived from the nodes'
// pods that a move changed the pods of these nodes (from is nil and to
// empty for a pod that held or takes none).
func (c *Cycle) movedBetween(from *cluster.Node, to string) {
	if c.guard == nil {
		return
	}
	if from != nil {
		c.guard.targets.touched(from.Index())
	}
	if n := c.Snapshot.Node(to); to != "" && n != nil {
		c.guard.targets.touched(n.Index())
	}
}

// GuardTargets returns, in increasing index order, the only nodes the guard
// may admit a pod to, or nil when it may admit one anywhere: a candidate's
// Targets for a strategy whose own condition accepts most nodes.
func (c *Cycle) GuardTargets() []int32 {
	if c.guard == nil {
		return nil
	}
	return c.guard.targets.targets(c)
}

// Done reports whether the cycle can evict nothing more: a strategy stops
// looking for candidates.
func (c *Cycle) Done() bool { return c.Mover.Exhausted() }

// Changes counts the changes of the cycle that can make a strategy find
// something new to do: each planned move, and each change of the guard
// (HighNodeUtilization settling which nodes it empties). The planner runs a
// strategy again only when it has changed since the strategy last ran.
func (c *Cycle) Changes() uint64 { return c.changes }

// Changed counts a change of a guard rule's view of the cycle that other
// strategies may act on (see Changes).
func (c *Cycle) Changed() { c.changes++ }

// View is a snapshot as it stands at one point of the cycle. Two equal
// views see the same placements; caches of placement-derived facts are
// keyed by it.
type View struct {
	// Snapshot is the working snapshot, or a fork a strategy simulates on.
	Snapshot *cluster.Snapshot
	edit     uint64
}

// Now returns the working snapshot as it stands.
func (c *Cycle) Now() View { return View{c.Snapshot, c.edits} }

// Edited records a change of a fork a strategy simulates on (a pod removed
// or placed), and returns the fork as it now stands.
func (c *Cycle) Edited(fork *cluster.Snapshot) View {
	c.edits++
	return View{fork, c.edits}
}

// Evictable reports whether the planner would let the strategy evict the
// pod now. Strategies ask before choosing among pods, so that they choose
// one that can actually move.
func (c *Cycle) Evictable(strategy string, p *cluster.Pod) bool {
	return c.Mover.Evictable(strategy, p) == ""
}

// UntilChange keeps a value worked out from the working snapshot until the
// cycle's next change (Cycle.Changes): a strategy that asks for it before
// each proposal computes it again only after a move.
type UntilChange[T any] struct {
	value T
	at    uint64
	known bool
}

// Get returns the kept value, computing it when the cycle has changed since.
func (u *UntilChange[T]) Get(c *Cycle, compute func() T) T {
	if c.NoCache {
		return compute()
	}
	if !u.known || u.at != c.Changes() {
		u.value, u.at, u.known = compute(), c.Changes(), true
	}
	return u.value
}
