package engine

import (
	"strings"

	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// staticIndex is what one combination of static checks says of every node
// of a snapshot family: for each node, whether a check turns it down and
// which one first, as the filter loop would record it. The pods of a
// workload share their spec, so the planner searches with the same checks
// again and again; with the index, a node they turn down costs the search
// one byte read instead of the checks, and the no-fit message adds up their
// reasons once instead of node by node.
type staticIndex struct {
	verdict []uint8 // verdictStatic for a node turned down, else verdictFeasible
	by      []uint8 // the position in the checks of the first that turns the node down
	// counts is how many turned-down nodes give each reason; nil when a
	// check leaves its reasons to its Filter.
	counts map[string]int
}

// maxStaticIndexes bounds the indexes kept per snapshot family: each holds
// two bytes per node.
const maxStaticIndexes = 256

// indexStaticChecks is off only in the tests that compare the searches
// with and without the index.
var indexStaticChecks = true

// staticIndexFor returns the index of the cycle's static checks, or nil
// when one of them has no Key or the search is limited to some nodes
// anyway (only), where the index would not pay for itself.
func (c *cycle) staticIndexFor(static []framework.NodeCheck, only map[string]bool) *staticIndex {
	if !indexStaticChecks || len(static) == 0 || only != nil || len(static) > 255 {
		return nil
	}
	var key strings.Builder
	for k := range static {
		if static[k].Key == "" {
			return nil
		}
		key.WriteString(static[k].Key)
		key.WriteByte(0)
	}
	return c.fam.staticIndexes.Get(key.String(), func() *staticIndex {
		return newStaticIndex(static, len(c.Nodes()))
	})
}

func newStaticIndex(static []framework.NodeCheck, nodes int) *staticIndex {
	idx := &staticIndex{verdict: make([]uint8, nodes), by: make([]uint8, nodes), counts: map[string]int{}}
	for i := range nodes {
		for k := range static {
			if !static[k].Rejects(i) {
				continue
			}
			idx.verdict[i], idx.by[i] = verdictStatic, uint8(k)
			reasons := static[k].ReasonsFor(i)
			if reasons == nil {
				idx.counts = nil
			}
			if idx.counts != nil {
				for _, r := range reasons {
					idx.counts[r]++
				}
			}
			break
		}
	}
	return idx
}

// rejectsStatically records node i as turned down by a static check when
// the cycle's index says so. The caller has dealt with excluded nodes.
func (c *cycle) rejectsStatically(i int) bool {
	if c.index == nil || c.index.verdict[i] != verdictStatic {
		return false
	}
	c.verdict[i], c.staticBy[i] = verdictStatic, c.index.by[i]
	return true
}

// indexCounts reports whether a message may take the reasons of the nodes
// the static checks turned down from the index: it has counted them, and
// each check's plugin runs before every other filter, so that its reasons
// are the first a node gives (see reasonsOf).
func (c *cycle) indexCounts() bool {
	if c.index == nil || c.index.counts == nil {
		return false
	}
	for k := range c.static {
		if int(c.staticPlugin[k]) >= c.firstDynamic {
			return false
		}
	}
	return true
}
