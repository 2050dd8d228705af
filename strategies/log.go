package strategies

import (
	"strings"

	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// vClassification is the -v level of the balancing strategies' line per
// node: how each resource compares with the thresholds, and what that makes
// of the node.
const vClassification = 2

// Node classes in the log.
const (
	classUnder    = "under"
	classOver     = "over"
	classTarget   = "target"
	classNotReady = "notReady"
	// classUnmeasured: usage classifies nodes, and the node's samples are
	// missing or stale.
	classUnmeasured = "unmeasured"
)

// logClassified writes how a balancing strategy classified a node. With
// twoSided unset (a strategy with one threshold per resource), a resource
// is under its threshold or not; otherwise under, over its target, or
// between (target).
func logClassified(strategy, pool string, n *cluster.Node, class string, b bands, twoSided bool) {
	v := klog.V(vClassification)
	if !v.Enabled() {
		return
	}
	var by strings.Builder
	for i, r := range b.resources {
		if i > 0 {
			by.WriteString(", ")
		}
		u := b.m.util(n, r)
		c := classTarget
		switch {
		case u < b.low[r]:
			c = classUnder
		case twoSided && u > b.high[r]:
			c = classOver
		case !twoSided:
			c = "not under"
		}
		by.WriteString(b.name(r) + " " + pct(u) + " " + c)
	}
	v.InfoSDepth(1, "Node classified", "strategy", strategy, "pool", pool, "node", n.Name, "class", class,
		"cordoned", n.Unschedulable(), "resources", by.String())
}
