package engine

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// cycle is one scheduling decision: the framework's Cycle, which the
// plugins see, plus the per-node outcome. Cycles are pooled, so that their
// buffers, sized by the number of nodes, and the plugins' states are
// reused from call to call.
type cycle struct {
	framework.Cycle
	e   *Engine
	fam *family

	// Per-node outcome and reusable buffers. verdict says, per node, what
	// turned it down (see verdictExcluded…); reasons are recomputed from it
	// only when a message or an explanation needs them, so that the filter
	// loop writes one byte per node.
	active        []framework.FilterPlugin
	static        []framework.NodeCheck
	dynamic       []int
	verdict       []uint8
	excluded      []bool
	excludeReason []string
	onlyBy        string
	onlyReason    []string
	// acceptReasons holds, by node index, why Accept refused the node;
	// only the entries of nodes with verdictAccept are current. So do
	// filterReasons, the reasons of the filter that rejected a node, for
	// nodes with a verdictFilter verdict, and staticBy, the position in
	// static of the check that rejected a node, for nodes with
	// verdictStatic. staticPlugin gives, for each static check, the
	// position in active of its plugin, and firstDynamic is the position of
	// the first filter that is not static.
	acceptReasons []string
	filterReasons [][]string
	staticBy      []uint8
	staticPlugin  []uint8
	firstDynamic  int
	// index is what the static checks say of every node, when they all
	// have keys (see staticIndex).
	index        *staticIndex
	rejectedBy   string
	rejectReason []string
	ext          *extenderVerdicts
	feasible     []int32
	totals       []int64
	scratch      []int64

	// nominated: see setNominated; nil when no pod nominated to a node
	// counts against this one.
	nominated *nominatedState
}

func (e *Engine) newCycle(snap *cluster.Snapshot, pod *cluster.Pod) *cycle {
	c, _ := e.cycles.Get().(*cycle)
	if c == nil {
		c = &cycle{}
		c.Init(len(e.plugins), c)
	}
	fam := e.familyOf(snap)
	c.Begin(snap, pod, fam.plugins)
	c.e, c.fam = e, fam
	c.verdict = zeroed(&c.verdict, len(snap.Nodes()))
	c.excluded = zeroed(&c.excluded, len(snap.Nodes()))
	return c
}

func (e *Engine) putCycle(c *cycle) {
	// Drop what points into the snapshot, so that a pooled cycle does not
	// keep a snapshot alive.
	clear(c.active)
	clear(c.static)
	c.End()
	*c = cycle{Cycle: c.Cycle, active: c.active[:0], static: c.static[:0], dynamic: c.dynamic[:0], verdict: c.verdict, excluded: c.excluded, feasible: c.feasible, totals: c.totals, scratch: c.scratch,
		acceptReasons: c.acceptReasons, filterReasons: c.filterReasons, staticBy: c.staticBy, staticPlugin: c.staticPlugin[:0]}
	e.cycles.Put(c)
}

// Rejection implements framework.Rejections for the plugins' Cycle.
func (c *cycle) Rejection(i int) (string, []string) { return c.reasonsOf(i) }

// logger is what component-helpers log through; the engine has nothing to
// say at the levels they use.
var logger = klog.Background()

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
	// verdictExtender: an extender's filter turned the node down.
	verdictExtender
	// verdictNominated: the node passes every filter, but not with the
	// pods nominated to it added (see nominatedState).
	verdictNominated
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
	case verdictExtender:
		return c.extenderReasons(i)
	case verdictNominated:
		st := c.nominated.failed[int32(i)]
		return st.Plugin, st.Reasons
	case verdictStatic:
		// The plugin whose check rejected the node is the first to reject
		// it when only static filters come before it: those passed their
		// checks. Otherwise an earlier filter, not run, may reject it too.
		k := c.staticBy[i]
		if a := int(c.staticPlugin[k]); a < c.firstDynamic {
			f := c.active[a]
			if r := c.static[k].ReasonsFor(i); r != nil {
				return f.Name(), r
			}
			return f.Name(), f.Filter(&c.Cycle, i)
		}
		for _, f := range c.active {
			if r := f.Filter(&c.Cycle, i); r != nil {
				return f.Name(), r
			}
		}
		return "", nil
	default:
		return c.active[v-verdictFilter].Name(), c.filterReasons[i]
	}
}

// rejectAll reports a PreFilter rejection: kube-scheduler gives every node
// the same status and prints the PreFilter message alone.
func (c *cycle) rejectAll(msg, plugin string, opts Options) Result {
	res := Result{Message: fmt.Sprintf("0/%d nodes are available: %s.", len(c.Nodes()), msg)}
	if opts.Explain {
		c.rejectedBy, c.rejectReason = plugin, []string{msg}
		for i := range c.Nodes() {
			c.verdict[i] = verdictRejectAll
		}
		res.Nodes = c.explain(nil, nil)
	}
	return res
}

// message builds kube-scheduler's FitError text: each reason with the
// number of nodes that gave it, sorted as strings.
func (c *cycle) message() string {
	// Neighbouring nodes mostly give the same reason (a pool's nodes sort
	// together): a run of it is counted without hashing it per node.
	counts := make(map[string]int)
	last, run := "", 0
	count := func(r string) {
		if run > 0 && r == last {
			run++
			return
		}
		if run > 0 {
			counts[last] += run
		}
		last, run = r, 1
	}
	// The nodes the static checks turned down are counted from the index,
	// less those recorded for something else first (excluded).
	indexed := c.indexCounts()
	for i := range c.Nodes() {
		v := c.verdict[i]
		if indexed {
			if v == verdictStatic {
				continue
			}
			if c.index.verdict[i] == verdictStatic {
				for _, r := range c.static[c.index.by[i]].ReasonsFor(i) {
					counts[r]--
				}
			}
		}
		if v == verdictAccept {
			// reasonsOf would wrap the reason in a new slice.
			count(c.acceptReasons[i])
			continue
		}
		_, rs := c.reasonsOf(i)
		for _, r := range rs {
			count(r)
		}
	}
	if run > 0 {
		counts[last] += run
	}
	if indexed {
		for r, n := range c.index.counts {
			counts[r] += n
		}
	}
	parts := make([]string, 0, len(counts))
	for r, n := range counts {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, r))
		}
	}
	sort.Strings(parts)
	msg := fmt.Sprintf("0/%d nodes are available", len(c.Nodes()))
	if len(parts) > 0 {
		msg += ": " + strings.Join(parts, ", ")
	}
	return msg + "."
}

// explain returns one NodeResult per node, in node name order.
func (c *cycle) explain(totals []int64, perPlugin [][]int64) []NodeResult {
	out := make([]NodeResult, len(c.Nodes()))
	for i, n := range c.Nodes() {
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
				r.Scores[ws.plugin.Name()] = perPlugin[j][k]
			}
		}
	}
	return out
}
