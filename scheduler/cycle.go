package scheduler

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// cycle is one scheduling decision: kube-scheduler's CycleState plus the
// per-node outcome. Cycles are pooled, so that their buffers, sized by the
// number of nodes, are reused from call to call.
type cycle struct {
	e     *Engine
	snap  *cluster.Snapshot
	nodes []*cluster.Node
	pod   *cluster.Pod
	t     *tables

	// Facts several plugins share, computed on first use.
	affinitySelection     []bool // nil when the pod's node selector and affinity select every node
	affinitySelectionDone bool
	untolerated           [][]string // per taint group, the NoSchedule/NoExecute reason or nil
	taints                *taintGroups
	nsLabels              labels.Set

	// Each plugin's PreFilter state.
	nodeName       string
	tolerateCordon bool
	fit            fitState
	ports          []cluster.HostPort
	spread         spreadState
	podAffinity    podAffinityState

	// Per-node outcome and reusable buffers. verdict says, per node, what
	// turned it down (see verdictExcluded…); reasons are recomputed from it
	// only when a message or an explanation needs them, so that the filter
	// loop writes one byte per node.
	active        []filterPlugin
	verdict       []uint8
	excluded      []bool
	excludeReason []string
	onlyBy        string
	onlyReason    []string
	acceptReasons map[int]string
	rejectedBy    string
	rejectReason  []string
	feasible      []int32
	totals        []int64
	scratch       []int64
	counts        []int32
	// scratchSums is ImageLocality's per-node sum, indexed by node.
	scratchSums []int64
	// perNode is PodTopologySpread's raw score per feasible node.
	perNode []float64
	// int32s are count buffers handed out by int32Buffer; used counts
	// those handed out in this cycle.
	int32s [][]int32
	used   int
}

// int32Buffer returns a zeroed []int32 of length n that lives until the
// cycle ends: counts per topology domain are as long as the number of
// nodes for the hostname key, and reusing them spares the allocator.
func (c *cycle) int32Buffer(n int) []int32 {
	if c.used == len(c.int32s) {
		c.int32s = append(c.int32s, nil)
	}
	buf := zeroed(&c.int32s[c.used], n)
	c.used++
	return buf
}

func (e *Engine) newCycle(snap *cluster.Snapshot, pod *cluster.Pod) *cycle {
	c, _ := e.cycles.Get().(*cycle)
	if c == nil {
		c = &cycle{}
	}
	*c = cycle{
		e:           e,
		snap:        snap,
		nodes:       snap.Nodes(),
		pod:         pod,
		t:           e.tablesFor(snap),
		active:      c.active[:0],
		feasible:    c.feasible[:0],
		totals:      c.totals,
		scratch:     c.scratch,
		counts:      c.counts,
		scratchSums: c.scratchSums,
		perNode:     c.perNode,
		int32s:      c.int32s,
		verdict:     zeroed(&c.verdict, len(snap.Nodes())),
		excluded:    zeroed(&c.excluded, len(snap.Nodes())),
	}
	return c
}

func (e *Engine) putCycle(c *cycle) {
	// Drop what points into the snapshot, so that a pooled cycle does not
	// keep a snapshot alive.
	clear(c.active)
	*c = cycle{active: c.active[:0], verdict: c.verdict, excluded: c.excluded, feasible: c.feasible, totals: c.totals, scratch: c.scratch, counts: c.counts, scratchSums: c.scratchSums, perNode: c.perNode, int32s: c.int32s}
	e.cycles.Put(c)
}

// logger is what component-helpers log through; the engine has nothing to
// say at the levels they use.
var logger = klog.Background()

// namespaceLabels returns the labels of the pod's namespace.
func (c *cycle) namespaceLabels() labels.Set {
	if c.nsLabels == nil {
		c.nsLabels = labels.Set(c.snap.NamespaceLabels(c.pod.Namespace))
	}
	return c.nsLabels
}

// requiredAffinitySelection returns, per node, whether the node matches the
// pod's spec.nodeSelector and required node affinity, or nil when the pod
// has neither. Pods of a workload share the same spec, so the answer is
// kept per spec for the snapshot family.
func (c *cycle) requiredAffinitySelection() []bool {
	if c.affinitySelectionDone {
		return c.affinitySelection
	}
	c.affinitySelectionDone = true
	spec := c.pod.Spec
	var required *corev1.NodeSelector
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil {
		required = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	if len(spec.NodeSelector) == 0 && required == nil {
		return nil
	}
	js, _ := json.Marshal(required)
	key := cluster.LabelKey("", spec.NodeSelector) + string(js)
	c.affinitySelection = memo(c.t, c.t.nodeSelections, key, func() []bool {
		req := nodeaffinity.GetRequiredNodeAffinity(c.pod.Pod)
		match := make([]bool, len(c.t.nodes))
		for i, n := range c.t.nodes {
			match[i], _ = req.Match(n)
		}
		return match
	})
	return c.affinitySelection
}

// untoleratedReasons returns, per taint group, the TaintToleration reason
// for a node of that group (its first NoSchedule or NoExecute taint the pod
// does not tolerate), or nil when the pod tolerates them all.
func (c *cycle) untoleratedReasons() ([][]string, *taintGroups) {
	if c.taints == nil {
		c.taints = c.t.taintGroups()
	}
	g := c.taints
	if c.untolerated == nil {
		c.untolerated = make([][]string, len(g.taints))
		for id, taints := range g.taints {
			taint, bad := corev1helpers.FindMatchingUntoleratedTaint(logger, taints, c.pod.Spec.Tolerations, doNotScheduleTaint, false)
			if bad {
				c.untolerated[id] = []string{fmt.Sprintf("node(s) had untolerated taint {%s: %s}", taint.Key, taint.Value)}
			}
		}
	}
	return c.untolerated, g
}

func doNotScheduleTaint(t *corev1.Taint) bool {
	return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
}

// placedOn returns the index of the node the pod holds resources on in this
// snapshot, or -1. The pod being scheduled never counts: the planner asks
// about a pod it has taken off its node.
func (c *cycle) placedOn(p *cluster.Pod) int32 {
	if p == c.pod {
		return -1
	}
	if n := c.snap.NodeOf(p); n != nil {
		return int32(n.Index())
	}
	return -1
}

// What turned a node down, in cycle.verdict: a filter's position in
// cycle.active plus verdictFilter, or one of these.
const (
	verdictFeasible uint8 = iota
	verdictExcluded
	verdictOnly
	verdictAccept
	verdictRejectAll
	verdictNotEvaluated
	// verdictStatic: a filter that depends only on the pod's spec and the
	// node's labels, taints and cordon rejected the node; which one is
	// worked out again when a message needs it.
	verdictStatic
	verdictFilter
)

// notEvaluated explains a node the search did not reach.
var notEvaluated = []string{"not evaluated: enough feasible nodes were found first (percentageOfNodesToScore)"}

// reasonsOf returns what turned node i down and why, or "" and nil for a
// feasible node.
func (c *cycle) reasonsOf(i int) (string, []string) {
	switch v := c.verdict[i]; v {
	case verdictFeasible:
		return "", nil
	case verdictExcluded:
		return ExcludedBy, c.excludeReason
	case verdictOnly:
		return c.onlyBy, c.onlyReason
	case verdictAccept:
		return AcceptedBy, []string{c.acceptReasons[i]}
	case verdictRejectAll:
		return c.rejectedBy, c.rejectReason
	case verdictNotEvaluated:
		return "", notEvaluated
	case verdictStatic:
		for _, f := range c.active {
			if r := f.filter(c, i); r != nil {
				return f.name(), r
			}
		}
		return "", nil
	default:
		f := c.active[v-verdictFilter]
		return f.name(), f.filter(c, i)
	}
}

// rejectAll reports a PreFilter rejection: kube-scheduler gives every node
// the same status and prints the PreFilter message alone.
func (c *cycle) rejectAll(msg, plugin string, opts Options) Result {
	res := Result{Message: fmt.Sprintf("0/%d nodes are available: %s.", len(c.nodes), msg)}
	if opts.Explain {
		c.rejectedBy, c.rejectReason = plugin, []string{msg}
		for i := range c.nodes {
			c.verdict[i] = verdictRejectAll
		}
		res.Nodes = c.explain(nil, nil)
	}
	return res
}

// message builds kube-scheduler's FitError text: each reason with the
// number of nodes that gave it, sorted as strings.
func (c *cycle) message() string {
	counts := make(map[string]int)
	for i := range c.nodes {
		_, rs := c.reasonsOf(i)
		for _, r := range rs {
			counts[r]++
		}
	}
	parts := make([]string, 0, len(counts))
	for r, n := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(parts)
	msg := fmt.Sprintf("0/%d nodes are available", len(c.nodes))
	if len(parts) > 0 {
		msg += ": " + strings.Join(parts, ", ")
	}
	return msg + "."
}

// explain returns one NodeResult per node, in node name order.
func (c *cycle) explain(totals []int64, perPlugin [][]int64) []NodeResult {
	out := make([]NodeResult, len(c.nodes))
	for i, n := range c.nodes {
		by, reasons := c.reasonsOf(i)
		out[i] = NodeResult{Name: n.Name, Plugin: by, Reason: strings.Join(reasons, ", ")}
	}
	for k, i := range c.feasible {
		r := &out[i]
		r.Feasible = true
		if totals == nil {
			continue
		}
		r.Score = totals[k]
		r.Scores = make(map[string]int64)
		for j, ws := range c.e.scores {
			if perPlugin[j] != nil {
				r.Scores[ws.plugin.name()] = perPlugin[j][k]
			}
		}
	}
	return out
}
