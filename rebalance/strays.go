package rebalance

import (
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// LogStrays says how many pods are bound to nodes the snapshot does not
// hold, so that a plan from a dump of only some nodes, or a cycle that read
// the pods after a node went away, does not leave pods out silently.
func LogStrays(snap *cluster.Snapshot) {
	strays := snap.Strays()
	if len(strays) == 0 {
		return
	}
	first := strays[0]
	klog.InfoS("Pods bound to nodes that are not in the snapshot are left alone", "pods", len(strays),
		"first", first.Key, "node", first.Spec.NodeName)
}
