package engine

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
)

// Options narrow a scheduling decision.
type Options struct {
	// Exclude names nodes that are never chosen, such as the node an evicted
	// pod leaves: its replacement must land elsewhere.
	Exclude []string
	// ExcludeReason is counted in the "0/N nodes are available" message for
	// each excluded node; DefaultExcludeReason when empty.
	ExcludeReason string
	// Accept, when set, is one more filter, run after the profile's filters
	// on nodes that pass them: a strategy's own condition on a target (for
	// example "an under-utilized node that stays under its target after the
	// move"). Reason is counted in the "0/N nodes are available" message
	// like a plugin's reason.
	Accept func(node *cluster.Node) (ok bool, reason string)
	// AcceptOnly, when set, lists in increasing order the indexes
	// (cluster.Node.Index) of the only nodes Accept may accept: Accept
	// refuses every other node, whatever its state. The search then looks
	// at those nodes alone, which is what a strategy that only moves
	// pods to a few nodes needs on a large cluster; the decision is the
	// one a search of every node makes, and when none of them is feasible
	// every node is looked at again, so that the message counts each
	// node's reason as it would without the list.
	AcceptOnly []int32
	// Explain asks for the per-node detail in Result.Nodes.
	Explain bool
}

// Result is a scheduling decision.
type Result struct {
	// Node is the chosen node: the feasible node with the highest total
	// score, ties broken by node name. Empty when no node is feasible.
	Node string `json:"node"`
	// Score is the chosen node's total weighted score.
	Score int64 `json:"score"`
	// RunnerUp is the feasible node with the next best score, if any.
	RunnerUp      string `json:"runnerUp,omitempty"`
	RunnerUpScore int64  `json:"runnerUpScore,omitempty"`
	// Feasible counts the nodes that passed every filter.
	Feasible int `json:"feasible"`
	// Evaluated counts the nodes the filters ran on: every node, unless
	// the profile's percentageOfNodesToScore let the search stop early.
	Evaluated int `json:"evaluated,omitempty"`
	// Message says why no node fits, in kube-scheduler's words:
	// "0/6 nodes are available: 1 node(s) were unschedulable, 5 Insufficient cpu."
	// Empty when a node was chosen.
	Message string `json:"message"`
	// NominatedNode is where a PostFilter plugin says the pod would fit
	// once it has acted (kube-scheduler's nominatedNodeName); only when no
	// node fits.
	NominatedNode string `json:"nominatedNode,omitempty"`
	// Error is set when the decision failed rather than found no node: an
	// extender that is not ignorable failed (Message says the same).
	Error string `json:"error,omitempty"`
	// Nodes is filled when Options.Explain is set, one entry per node, in
	// node name order.
	Nodes []NodeResult `json:"nodes,omitempty"`
}

// NodeResult explains the decision for one node.
type NodeResult struct {
	Name     string `json:"name"`
	Feasible bool   `json:"feasible"`
	// Plugin and Reason: the first filter the node failed and why.
	Plugin string `json:"plugin,omitempty"`
	Reason string `json:"reason"`
	// Score is the total weighted score of a feasible node; Scores holds each
	// score plugin's normalized score (0-100), before its weight.
	Score  int64            `json:"score"`
	Scores map[string]int64 `json:"scores,omitempty"`
}

// Placer is what the planner needs from a scheduler. The Engine implements
// it.
type Placer interface {
	// Schedule chooses a node for pod in snap as it is now. The pod must not
	// hold resources anywhere in snap (the planner removes a pod from its
	// node before asking where its replacement would go).
	Schedule(snap *cluster.Snapshot, pod *cluster.Pod, opts Options) Result
	// Fits reports whether pod could run on node in snap as it is now, by
	// every filter, and if not why (the first failing filter's reason).
	Fits(snap *cluster.Snapshot, pod *cluster.Pod, node *cluster.Node) (bool, string)
}
