package planner

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// Plan is the outcome of planning one cycle.
type Plan struct {
	// At is the instant the plan was computed for: the snapshot's time, from
	// which pod ages and the cooldown are measured.
	At time.Time `json:"at"`
	// Moves are the evictions to make, in order, each with where the
	// replacement is expected to run.
	Moves []Move `json:"moves"`
	// Skipped are the candidates that did not become moves.
	Skipped []Skip `json:"skipped"`
	// Placements are the pending pods planned onto the nodes the moves
	// make room on, in order; the room is held for them for the rest of
	// the plan.
	Placements []Placement `json:"placements,omitempty"`
	// Nodes is the utilization of each node the policy selects, before the
	// moves and after them.
	Nodes []NodeUsage `json:"nodes"`
	// Stopped says why the strategies stopped before looking at every pod
	// (limits.total spent); empty when they looked at all.
	Stopped string `json:"stopped,omitempty"`
	// Predicted is set when nothing steers the replacements (the policy's
	// replacements: predicted): each move's To is where the pod's scheduler
	// is expected to put the replacement, not where it is sent.
	Predicted bool `json:"predicted,omitempty"`
	// Usage is set when a strategy classifies nodes by usage: where the
	// usage came from and how much of it was measured.
	Usage *UsageSummary `json:"usage,omitempty"`
	// Notes are what the strategies said beside their moves: nodes they
	// left out (their usage unknown), or why they did nothing; then, for
	// each strategy that found pods to move and moved none, what kept them;
	// then the pods that wait for a node.
	Notes []Note `json:"notes,omitempty"`
	// Observations are the counts of consecutive observations the
	// utilization strategies made (metricsUtilization.consecutiveObservations),
	// by strategy and node, for the next run to go on from; none when no
	// strategy counts them.
	Observations []cluster.Observation `json:"observations,omitempty"`
}

// Note is what a strategy said of a node it left out, or of itself when it
// did nothing, or what the planner says of the cycle. The plan owns its
// format, as it owns Move's: the strategies record theirs as
// framework.Note, and the report reads only the plan.
type Note struct {
	// Strategy is the strategy the note is about; empty for the cycle.
	Strategy string `json:"strategy,omitempty"`
	// Node is the node the note is about; empty for the whole strategy.
	Node string `json:"node,omitempty"`
	Text string `json:"text"`
	// Skipped counts, by category, the pods a strategy found to move and
	// moved none of.
	Skipped map[Category]int `json:"skipped,omitempty"`
	// Pending counts the pods that wait for a node.
	Pending *PendingPods `json:"pending,omitempty"`
}

// UsageSummary tells how far measured usage, rather than requests, stood
// behind a plan.
type UsageSummary struct {
	// Sources are the sources the policy reads (KubernetesMetrics,
	// Prometheus).
	Sources []string `json:"sources"`
	// At is when the metrics were read (for a dump, its newest sample);
	// zero when none was.
	At time.Time `json:"at,omitzero"`
	// Error says why the metrics could not be read.
	Error string `json:"error,omitempty"`
	// Nodes counts the nodes with a metrics.k8s.io or Prometheus sample.
	Nodes int `json:"nodes"`
	// PodsByRequests counts the pods on those nodes without a sample of
	// their own: their usage is taken to be their requests, wherever they
	// move.
	PodsByRequests int `json:"podsByRequests"`
}

// Move is one planned eviction.
type Move struct {
	// Pod is "namespace/name".
	Pod string `json:"pod"`
	// UID pins the eviction to the pod that was planned, not a later pod of
	// the same name.
	UID types.UID `json:"uid,omitempty"`
	// Workload is the pod's top controller, "Kind namespace/name".
	Workload string `json:"workload,omitempty"`
	From     string `json:"from"`
	// To is the node the replacement is planned on (a prediction when the
	// plan is Predicted); empty when nothing replaces the pod or it needs no
	// node.
	To       string `json:"to"`
	Strategy string `json:"strategy"`
	Reason   string `json:"reason"`
	// Step is the move's step, from 1: a run makes a step's moves, waits
	// until their replacements are Ready and the PodDisruptionBudgets allow
	// the next step's, then goes on. Within a step no budget (a
	// PodDisruptionBudget, or the implicit budget of a workload none
	// covers) and no per-node, per-namespace or per-workload limit is
	// exceeded.
	Step int `json:"step"`
	// Budget names the implicit budget the move counts against, when no
	// PodDisruptionBudget covers the pod: "implicit budget: maxUnavailable
	// 25% of Deployment shop/web: 1 of 4 replicas a step".
	Budget string `json:"budget,omitempty"`
	// Surge: the move is made before the pod goes (evictable.makeBeforeBreak),
	// as no eviction may be: its Deployment gets one replica more, the new
	// pod runs on To, and once it is Ready the Deployment goes back to its
	// replicas, removing this pod. It takes nothing from a budget.
	Surge bool `json:"surge,omitempty"`
	// Score is To's total score; RunnerUp is the next best node, so that a
	// reader sees how clear the choice was.
	Score         int64  `json:"score,omitempty"`
	RunnerUp      string `json:"runnerUp,omitempty"`
	RunnerUpScore int64  `json:"runnerUpScore,omitempty"`
}

// Placement is a pending pod planned onto a node.
type Placement struct {
	// Pod is "namespace/name".
	Pod      string `json:"pod"`
	Node     string `json:"node"`
	Strategy string `json:"strategy"`
	Reason   string `json:"reason"`
}

// Skip is a candidate left in place.
type Skip struct {
	Pod      string `json:"pod"`
	Strategy string `json:"strategy"`
	// Category groups reasons for counting: one of the Category constants.
	Category Category `json:"category"`
	Reason   string   `json:"reason"`
}

// Category is the kind of reason a candidate was skipped for. The
// strategies define it, as they skip pods too and may not import the
// planner.
type Category = framework.Category

// The categories of skipped candidates (see framework.Category).
const (
	Protected    = framework.Protected
	OptedOut     = framework.OptedOut
	Excluded     = framework.Excluded
	NodeNotReady = framework.NodeNotReady
	LimitReached = framework.LimitReached
	PDBBudget    = framework.PDBBudget
	NoFit        = framework.NoFit
	Cooldown     = framework.Cooldown
	Futile       = framework.Futile

	BelowMinImprovement = framework.BelowMinImprovement
)

// NodeUsage is a node's requested share of its allocatable resources, in
// percent, before and after the plan.
type NodeUsage struct {
	Name          string             `json:"name"`
	Unschedulable bool               `json:"unschedulable,omitempty"`
	Before        map[string]float64 `json:"before"`
	After         map[string]float64 `json:"after"`
	// UsageBefore and UsageAfter are the node's measured usage in percent
	// of allocatable (cpu, memory; "query" for a Prometheus query's value),
	// when usage classifies nodes and the node has a sample: after the
	// plan, the moved pods' usage has left it or arrived.
	UsageBefore map[string]float64 `json:"usageBefore,omitempty"`
	UsageAfter  map[string]float64 `json:"usageAfter,omitempty"`
}
