package nodeutilization

import (
	"strings"

	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// vClassification is the -v level of the balancing strategies' line per
// node: how each resource compares with the thresholds, and what that makes
// of the node.
const VClassification = 2

// Node classes in the log.
const (
	ClassUnder    = "under"
	ClassOver     = "over"
	ClassTarget   = "target"
	ClassNotReady = "notReady"
	// classUnmeasured: usage classifies nodes, and the node's samples are
	// missing or stale.
	ClassUnmeasured = "unmeasured"
)

// LogClassified writes how a balancing strategy classified a node. With
// twoSided unset (a strategy with one threshold per resource), a resource
// is under its threshold or not; otherwise under, over its target, or
// between (target).
func LogClassified(strategy, pool string, n *cluster.Node, class string, b Bands, twoSided bool) {
	v := klog.V(VClassification)
	if !v.Enabled() {
		return
	}
	var by strings.Builder
	for i, r := range b.Resources {
		if i > 0 {
			by.WriteString(", ")
		}
		u := b.Meter.Util(n, r)
		c := ClassTarget
		switch {
		case u < b.Low[r]:
			c = ClassUnder
		case twoSided && u > b.High[r]:
			c = ClassOver
		case !twoSided:
			c = "not under"
		}
		by.WriteString(b.Name(r) + " " + Pct(u) + " " + c)
	}
	v.InfoSDepth(1, "Node classified", "strategy", strategy, "pool", pool, "node", n.Name, "class", class,
		"cordoned", n.Unschedulable(), "resources", by.String())
}
