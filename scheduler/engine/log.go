package engine

import (
	"strings"

	"k8s.io/klog/v2"
)

// vDecisions is the -v level of the lines that explain each decision: the
// nodes the filters turned down for a pod, and which filter did.
const vDecisions = 4

// logRejections writes a line for each node a filter (or the caller's
// exclusion or Accept) turned down for the pod. The reasons are recomputed
// from the verdicts, so the log costs nothing when it is off.
func (c *cycle) logRejections() {
	v := klog.V(vDecisions)
	if !v.Enabled() {
		return
	}
	for i, n := range c.Nodes() {
		if by, reasons := c.reasonsOf(i); by != "" {
			v.InfoSDepth(1, "Node rejected", "pod", c.Pod().Key, "node", n.Name, "filter", by, "reason", strings.Join(reasons, ", "))
		}
	}
}

// logRejectedByPreFilter writes the line of a PreFilter that turned down
// every node at once.
func (c *cycle) logRejectedByPreFilter(res *Result) {
	if v := klog.V(vDecisions); v.Enabled() {
		v.InfoSDepth(1, "Every node rejected", "pod", c.Pod().Key, "message", res.Message)
	}
}
