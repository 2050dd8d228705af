package strategies

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/scheduler"
)

// Strategy proposes moves for one kind of problem.
type Strategy interface {
	// Name is the strategy's key under strategies: in a policy.
	Name() string
	// Run proposes candidates to in.Mover, one at a time, reading the
	// working snapshot as earlier moves left it.
	Run(in *Input)
}

// Candidate is a pod a strategy wants to move, and why.
type Candidate struct {
	Pod *cluster.Pod
	// Reason tells a user why the pod should move, with the figures that
	// made the decision (for example "node-a is over target: cpu 85% > 50%").
	Reason string
	// Accept, when set, is the strategy's condition on the node the pod's
	// replacement would land on (for balancing: an under-utilized node that
	// stays under its target after the move). The reason it returns for a
	// refused node appears in the message of a candidate that no node takes.
	Accept func(node *cluster.Node) (ok bool, reason string)
	// Targets, when set, lists in increasing order the indexes
	// (cluster.Node.Index) of the only nodes Accept can accept, so that the
	// search for a target looks at those alone: on a large cluster a
	// balancing strategy's targets are a few of its nodes.
	Targets []int32
	// Sibling, when set, is a pod the strategy proposed before this one,
	// from the same node, whose candidate had the same Accept as this one
	// as long as no move is planned in between (a replica of the same
	// workload on the same crowded node). When the sibling's replacement
	// was the last placement and fit nowhere, nothing has moved since, and
	// the two pods are alike for the scheduler, the planner answers this
	// candidate as it answered the sibling without searching every node
	// again.
	Sibling *cluster.Pod
}

// Outcome is the planner's answer to a candidate.
type Outcome struct {
	// Moved is true when the planner planned the move and applied it to the
	// working snapshot.
	Moved bool
	// To is the node the replacement is planned on; empty for a pod that no
	// controller replaces or that holds no node (a failed pod).
	To string
	// Reason says why the move was not planned.
	Reason string
	// Category is the kind of Reason, as the plan's skipped pods are
	// counted by; empty when the pod moved, had already moved this cycle,
	// or was not looked at because the cycle can evict nothing more.
	Category Category
}

// Category is the kind of reason a candidate was left in place: one set
// for the strategies and the plan (planner.Category is this type), so that
// a strategy's skip counts with the planner's.
type Category string

// The categories of skipped candidates.
const (
	Protected    Category = "protected"
	OptedOut     Category = "opted-out"
	Excluded     Category = "excluded"
	NodeNotReady Category = "node-not-ready"
	LimitReached Category = "limit"
	PDBBudget    Category = "pdb"
	NoFit        Category = "no-fit"
	Cooldown     Category = "cooldown"
	// Futile: with replacements predicted, the pod's scheduler would put
	// the replacement back on the node it left, or on a node the strategy
	// would not move it to: the eviction would disrupt the pod for nothing.
	Futile Category = "futile"
)

// Mover is the planner as the strategies see it.
type Mover interface {
	// Evictable returns why the strategy cannot evict the pod now
	// (protected by the strategy's evictable settings, a limit reached, no
	// PDB budget, already moved this cycle), or "" when it can. Strategies
	// use it to choose among pods; Move checks it again.
	Evictable(strategy string, p *cluster.Pod) string
	// Move plans the eviction of c.Pod and the placement of its replacement,
	// or says why not. A refusal is not recorded: the strategy decides with
	// Skip whether the pod was one it needed to move or one alternative among
	// several (see want).
	Move(strategy string, c Candidate) Outcome
	// Skip records that the strategy needed to move p and could not, for
	// the reason of o, the Outcome of p's refused Move. A zero o stands for
	// a pod the strategy did not propose because Evictable refused it: the
	// planner records the reason Move would have given.
	Skip(strategy string, p *cluster.Pod, o Outcome)
	// Exhausted reports whether no eviction is possible any more this cycle
	// (limits.total is spent): strategies stop instead of proposing pods
	// that could only be refused.
	Exhausted() bool
}

// Input is what a strategy works with.
type Input struct {
	// Snapshot is the cycle's working snapshot: the cluster as the moves
	// planned so far leave it.
	Snapshot *cluster.Snapshot
	Policy   *policy.Policy
	// Placer answers fit questions with the same rules that place pods.
	Placer scheduler.Placer
	Mover  Mover

	settings map[string]*policy.Settings
	nodes    []*cluster.Node

	// edits counts the changes made to the working snapshot and to the
	// forks strategies simulate on, so that what is derived from placements
	// is recomputed exactly when they change (see view).
	edits uint64
	// changes counts what strategies see change: planned moves, and the
	// guard's view of the cycle (see Changes).
	changes uint64
	// current names the strategy whose candidate the planner is placing.
	current string
	guard   *guard
	tables  tables
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
func (in *Input) Note(strategy, node, text string) {
	n := Note{Strategy: strategy, Node: node, Text: text}
	for _, o := range in.notes {
		if o == n {
			return
		}
	}
	in.notes = append(in.notes, n)
}

// Notes returns the notes recorded so far, in the order they were.
func (in *Input) Notes() []Note { return in.notes }

// Settings returns the policy settings of a namespace's pods.
func (in *Input) Settings(namespace string) *policy.Settings {
	if s, ok := in.settings[namespace]; ok {
		return s
	}
	if in.settings == nil {
		in.settings = make(map[string]*policy.Settings)
	}
	s := in.Policy.For(namespace, in.Snapshot.NamespaceLabels(namespace))
	in.settings[namespace] = s
	return s
}

// Args returns the arguments of the strategy that apply to the pod, or nil
// when the strategy does not apply to it: off for its namespace, not
// selected by the strategy's namespaces or labelSelector, or in a namespace
// the policy leaves alone.
func (in *Input) Args(strategy string, p *cluster.Pod) policy.StrategyArgs {
	// Strategies ask for every pod they look at, in every round, and the
	// guard for every node a placement looks at: the answer is kept per
	// group of pods with one namespace and one set of labels, all that it
	// reads of a pod.
	if g := in.podGroup(p); g >= 0 && !in.NoCache {
		byGroup := in.argsByGroup(strategy)
		if e := &byGroup[g]; e.set {
			return e.args
		}
		a := in.podArgs(strategy, p)
		byGroup[g] = groupArgs{set: true, args: a}
		return a
	}
	return in.podArgs(strategy, p)
}

func (in *Input) podArgs(strategy string, p *cluster.Pod) policy.StrategyArgs {
	if !in.Policy.AllowsNamespace(p.Namespace) {
		return nil
	}
	a := in.Settings(p.Namespace).Args(strategy)
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
func (in *Input) podGroup(p *cluster.Pod) int {
	t := &in.tables
	if t.groupOf == nil {
		t.groupOf = make([]int32, len(in.Snapshot.Pods()))
		for i := range t.groupOf {
			t.groupOf[i] = -1
		}
		for g, group := range in.Snapshot.PodGroups().Groups {
			for _, q := range group.Pods {
				if i := q.Index(); i >= 0 && i < len(t.groupOf) {
					t.groupOf[i] = int32(g)
				}
			}
		}
	}
	if i := p.Index(); i >= 0 && i < len(t.groupOf) && in.Snapshot.Pods()[i] == p {
		return int(t.groupOf[i])
	}
	return -1
}

// argsByGroup returns the strategy's answers by pod group; the last
// strategy's are at hand, since a strategy asks about its pods in a row.
func (in *Input) argsByGroup(strategy string) []groupArgs {
	t := &in.tables
	if t.lastGroupArgs.byGroup != nil && t.lastGroupArgs.strategy == strategy {
		return t.lastGroupArgs.byGroup
	}
	byGroup, ok := t.groupArgs[strategy]
	if !ok {
		byGroup = make([]groupArgs, len(in.Snapshot.PodGroups().Groups))
		if t.groupArgs == nil {
			t.groupArgs = make(map[string][]groupArgs)
		}
		t.groupArgs[strategy] = byGroup
	}
	t.lastGroupArgs.strategy, t.lastGroupArgs.byGroup = strategy, byGroup
	return byGroup
}

// Nodes returns the nodes the policy's nodeSelector selects, in name order.
func (in *Input) Nodes() []*cluster.Node {
	// The snapshot copies a node when an edit touches it: return the
	// current copies, not those of the first call.
	selected := in.selected()
	out := make([]*cluster.Node, len(selected))
	for i, n := range selected {
		out[i] = in.Snapshot.Node(n.Name)
	}
	return out
}

// usable says, per node index, whether the node is Ready and selected by
// the policy: one that can give and take pods.
func (in *Input) usable() []bool {
	if in.tables.usable == nil {
		in.tables.usable = make([]bool, len(in.Snapshot.Nodes()))
		for _, n := range in.selected() {
			in.tables.usable[n.Index()] = n.Ready()
		}
	}
	return in.tables.usable
}

// selected returns the nodes the policy's nodeSelector selects as they were
// first seen: for what edits do not change (name, index, labels, taints,
// conditions), without copying the list.
func (in *Input) selected() []*cluster.Node {
	if in.nodes == nil {
		in.nodes = []*cluster.Node{}
		for _, n := range in.Snapshot.Nodes() {
			if in.Policy.SelectsNode(n.Labels) {
				in.nodes = append(in.nodes, n)
			}
		}
	}
	return in.nodes
}

// move proposes a candidate the strategy needs to move, on its own (a pod
// that violates a rule, a pod past its age): a refusal is recorded as a
// skipped pod. A strategy that needs k pods of a group proposes them
// through a want instead.
func (in *Input) move(strategy string, c Candidate) Outcome {
	o := in.propose(strategy, c)
	if !o.Moved && o.Category != "" {
		in.Mover.Skip(strategy, c.Pod, o)
	}
	return o
}

// propose proposes a candidate to the planner and records nothing. The
// edit count changes before and after: while the planner places the pod,
// the pod is off its node, and afterwards it may be somewhere else.
func (in *Input) propose(strategy string, c Candidate) Outcome {
	if in.Done() {
		return Outcome{Reason: "no eviction is possible any more this cycle"}
	}
	if in.guard != nil {
		in.guard.prepare(in, strategy)
	}
	in.edits++
	in.current = strategy
	from := in.Snapshot.NodeOf(c.Pod)
	o := in.Mover.Move(strategy, c)
	in.current = ""
	in.edits++
	if o.Moved {
		in.changes++
		in.movedBetween(from, o.To)
	}
	return o
}

// movedBetween tells what keeps per-node state derived from the nodes'
// pods that a move changed the pods of these nodes (from is nil and to
// empty for a pod that held or takes none).
func (in *Input) movedBetween(from *cluster.Node, to string) {
	if in.guard == nil {
		return
	}
	if from != nil {
		in.guard.targets.touched(from.Index())
	}
	if n := in.Snapshot.Node(to); to != "" && n != nil {
		in.guard.targets.touched(n.Index())
	}
}

// guardTargets returns, in increasing index order, the only nodes the guard
// may admit a pod to, or nil when it may admit one anywhere: a candidate's
// Targets for a strategy whose own condition accepts most nodes.
func (in *Input) guardTargets() []int32 {
	if in.guard == nil {
		return nil
	}
	return in.guard.targets.targets(in)
}

// Move proposes a candidate of the named strategy to the planner and
// returns its answer, keeping the cycle's bookkeeping: the way for a
// strategy registered from outside this package to propose a move. The
// candidate is one the strategy needs to move: when the planner refuses
// it, the plan lists it as skipped.
func (in *Input) Move(strategy string, c Candidate) Outcome { return in.move(strategy, c) }

// Done reports whether the cycle can evict nothing more: a strategy stops
// looking for candidates.
func (in *Input) Done() bool { return in.Mover.Exhausted() }

// Changes counts the changes of the cycle that can make a strategy find
// something new to do: each planned move, and each change of the guard
// (HighNodeUtilization settling which nodes it empties). The planner runs a
// strategy again only when it has changed since the strategy last ran.
func (in *Input) Changes() uint64 { return in.changes }

// view is a snapshot as it stands at one point of the cycle. Two equal
// views see the same placements; caches of placement-derived facts are
// keyed by it.
type view struct {
	snap *cluster.Snapshot
	edit uint64
}

// now returns the working snapshot as it stands.
func (in *Input) now() view { return view{in.Snapshot, in.edits} }

// evictable reports whether the planner would let the strategy evict the
// pod now. Strategies ask before choosing among pods, so that they choose
// one that can actually move.
func (in *Input) evictable(strategy string, p *cluster.Pod) bool {
	return in.Mover.Evictable(strategy, p) == ""
}

// untilChange keeps a value worked out from the working snapshot until the
// cycle's next change (Input.Changes): a strategy that asks for it before
// each proposal computes it again only after a move.
type untilChange[T any] struct {
	value T
	at    uint64
	known bool
}

func (u *untilChange[T]) get(in *Input, compute func() T) T {
	if in.NoCache {
		return compute()
	}
	if !u.known || u.at != in.Changes() {
		u.value, u.at, u.known = compute(), in.Changes(), true
	}
	return u.value
}
