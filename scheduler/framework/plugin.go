package framework

import "time"

// Plugin is a scheduling plugin: a FilterPlugin, a ScorePlugin or both,
// under the name a profile enables it by.
type Plugin interface {
	Name() string
}

// PreFilterResult is what a filter plugin's PreFilter decides for a pod.
type PreFilterResult struct {
	// Skip: the plugin has nothing to check for this pod; Filter is not
	// called.
	Skip bool
	// Reject, when set, rejects every node: kube-scheduler's PreFilter
	// failure, reported as "0/N nodes are available: <Reject>."
	Reject string
	// Only, when not nil, names the only nodes that can pass
	// (kube-scheduler's PreFilterResult).
	Only map[string]bool
}

// FilterPlugin is a plugin's PreFilter and Filter.
type FilterPlugin interface {
	Plugin
	// PreFilter computes, once per pod, what Filter needs (counts over the
	// whole cluster, parsed terms), keeping it in the plugin's cycle state
	// (see State).
	PreFilter(c *Cycle) PreFilterResult
	// Filter checks node i of c.Nodes() and returns nil when it passes, else
	// kube-scheduler's reasons. It is called for every node the search
	// reaches, so it must not allocate when the node passes; the slices it
	// returns may be shared and are only read.
	Filter(c *Cycle, i int) []string
}

// ScorePlugin is a plugin's PreScore, Score and NormalizeScore in one call.
type ScorePlugin interface {
	Plugin
	// Score writes, for each feasible node (indexes into c.Nodes()), its
	// normalized score in [0, 100] to out. It returns false when the plugin
	// skips this pod, leaving out at zero.
	Score(c *Cycle, feasible []int32, out []int64) bool
}

// StaticFilterPlugin is a FilterPlugin whose verdict, after PreFilter,
// depends only on the pod's spec and on what a node is (name, labels,
// taints, cordon), never on what runs there. Most rejected nodes fail such
// a filter, so the engine checks the tables the plugin gives inline, before
// it calls the other filters, and calls Filter only to explain a node.
type StaticFilterPlugin interface {
	FilterPlugin
	// AppendStaticChecks appends to checks the tables that together give
	// exactly Filter's pass or fail for every node of c.
	AppendStaticChecks(c *Cycle, checks []NodeCheck) []NodeCheck
}

// NodeCheck is a per-node table of a static filter: node i is turned down
// when Bits[Group[i]] (Bits[i] when Group is nil) differs from Pass.
type NodeCheck struct {
	// Group maps each node to its entry in Bits, for facts nodes share
	// (taint sets); nil maps node i to Bits[i].
	Group []int32
	Bits  []bool
	// Pass says that Bits marks the nodes that pass; otherwise it marks
	// those turned down.
	Pass bool
	// Reason, when set, is what Filter says of every node the check turns
	// down; Reasons, when set, what it says by entry of Bits. Without
	// either, a message asks Filter again for each node turned down.
	Reason  []string
	Reasons [][]string
	// Key, when set, names the check's content within the engine and the
	// snapshot family: two checks with one Key turn down the same nodes
	// for the same reasons. The engine keeps what a combination of keyed
	// checks says of every node, and a search then spends nothing on the
	// nodes they turn down. Without a Key the check is asked node by node.
	Key string
}

// Rejects reports whether the check turns node i down.
func (k *NodeCheck) Rejects(i int) bool {
	return k.Bits[k.entry(i)] != k.Pass
}

func (k *NodeCheck) entry(i int) int {
	if k.Group != nil {
		return int(k.Group[i])
	}
	return i
}

// ReasonsFor returns what the check says of node i, which it turns down,
// or nil when Filter has to be asked.
func (k *NodeCheck) ReasonsFor(i int) []string {
	if k.Reason != nil {
		return k.Reason
	}
	if k.Reasons != nil {
		return k.Reasons[k.entry(i)]
	}
	return nil
}

// PostFilterPlugin runs when the pod fits no node, as kube-scheduler's
// PostFilter: the plugins run in profile order until one nominates a node.
type PostFilterPlugin interface {
	Plugin
	// PostFilter may name a node where the pod would fit once the plugin
	// has acted (preemption's victims gone); c.Rejection says why each
	// node was turned down. The engine only reports the nomination.
	PostFilter(c *Cycle) PostFilterResult
}

// PostFilterResult is what a PostFilter plugin decided.
type PostFilterResult struct {
	// NominatedNode, when set, ends PostFilter: Result.NominatedNode.
	NominatedNode string
	// Reasons say why the plugin could not help; they follow the
	// "0/N nodes are available: …." message, as kube-scheduler's
	// PostFilter messages do.
	Reasons []string
}

// PermitVerdict is a Permit plugin's answer.
type PermitVerdict string

// A Permit plugin approves, denies, or asks the binding to wait until it
// allows or rejects the pod through its WaitingPod, or its timeout ends.
const (
	PermitAllow PermitVerdict = "Allow"
	PermitDeny  PermitVerdict = "Deny"
	PermitWait  PermitVerdict = "Wait"
)

// MaxPermitTimeout caps a Permit plugin's wait, as in kube-scheduler.
const MaxPermitTimeout = 15 * time.Minute

// PermitResult is what a Permit plugin decided for a pod on a node.
type PermitResult struct {
	Verdict PermitVerdict
	// Reason says why a pod is denied.
	Reason string
	// Timeout bounds a wait (at most MaxPermitTimeout): the pod is
	// rejected when the plugin has not allowed it by then.
	Timeout time.Duration
}

// PermitPlugin runs once a node is chosen, before the pod is bound, as
// kube-scheduler's Permit. The engine reports the verdict (Engine.Permit);
// `rebalancer schedule` waits for a waiting pod before it binds.
type PermitPlugin interface {
	Plugin
	Permit(c *Cycle, node string) PermitResult
}
