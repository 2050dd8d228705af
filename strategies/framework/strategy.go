package framework

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
)

// Strategy proposes moves for one kind of problem.
type Strategy interface {
	// Name is the strategy's key under strategies: in a policy.
	Name() string
	// Run proposes candidates to c.Mover, one at a time, reading the
	// working snapshot as earlier moves left it.
	Run(c *Cycle)
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
	// BelowMinImprovement: the move would gain less than the strategy's
	// minImprovement asks (the reason gives both figures): not worth the
	// disruption.
	BelowMinImprovement Category = "below-min-improvement"
)

// Mover is the planner as the strategies see it.
type Mover interface {
	// Evictable returns why the strategy cannot evict the pod now
	// (protected by the strategy's evictable settings, a limit reached, no
	// PDB budget, already moved this cycle), or "" when it can. Strategies
	// use it to choose among pods; Move checks it again.
	Evictable(strategy string, p *cluster.Pod) string
	// Move plans the eviction of c.Pod and the placement of its replacement,
	// or says why not. A Refusal is not recorded: the strategy decides with
	// Skip whether the pod was one it needed to move or one alternative among
	// several (see Need).
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

// Counter is implemented by a Mover that counts, by reason, the pods a
// strategy needed to move and did not propose, without listing them: a
// strategy whose cheap checks pass over thousands of pods on a large
// cluster (LowNodeUtilization's pods that no under-utilized node has room
// for) would flood the plan's skipped pods. It takes what Skip takes.
type Counter interface {
	Count(strategy string, p *cluster.Pod, o Outcome)
}

// GroupChecker is implemented by a Mover that can tell whether pods may all
// be evicted in this cycle together: limits and disruption budgets counted
// for all of them, not one at a time.
type GroupChecker interface {
	EvictableTogether(strategy string, pods []*cluster.Pod) string
}

// Reserver is implemented by a Mover that can plan a pending pod onto a
// node: the pod takes its room in the working snapshot, so that no later
// move of the cycle takes it, and the plan lists the placement.
type Reserver interface {
	Reserve(strategy string, p *cluster.Pod, node, reason string) bool
}

// PendingServer is implemented by a strategy that plans pending pods onto
// nodes (Reserve), so that the plan's note on the pods that wait for a
// node does not say that no strategy serves them.
type PendingServer interface {
	Strategy
	ServesPendingPods()
}
