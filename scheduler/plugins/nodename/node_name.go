// Package nodename is kube-scheduler's NodeName plugin: a pod that names
// its node, and was never bound, goes there or nowhere.
package nodename

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// Name is the plugin's name in a profile.
const Name = "NodeName"

// ErrReasonNodeName is kube-scheduler's NodeName reason.
const ErrReasonNodeName = "node(s) didn't match the requested node name"

var reasonNodeName = []string{ErrReasonNodeName}

// nodeName keeps a pod that names its node (spec.nodeName) off every other
// node.
//
// A pod that has been bound carries the node it was bound to in
// spec.nodeName too. The planner asks where such a pod's replacement would
// go, and the replacement, made from the controller's template, names no
// node; so spec.nodeName counts only for a pod that was never bound: no
// PodScheduled=True condition and a phase that is empty or Pending.
type nodeName struct {
	key framework.StateKey
}

var _ framework.StaticFilterPlugin = (*nodeName)(nil)

func New(_ any, h framework.Handle) (framework.Plugin, error) {
	return &nodeName{key: h.StateKey()}, nil
}

// nodeNameState is the node the pod asks for, and the static check's
// per-node table, kept from cycle to cycle.
type nodeNameState struct {
	name   string
	isNode []bool
}

// Reset keeps the table's buffer.
func (s *nodeNameState) Reset() { s.name = "" }

func (*nodeName) Name() string { return Name }

func (p *nodeName) PreFilter(c *framework.Cycle) framework.PreFilterResult {
	st := framework.State[nodeNameState](c, p.key)
	st.name = ""
	if PinnedNodeName(c.Pod().Pod) {
		st.name = c.Pod().Spec.NodeName
	}
	return framework.PreFilterResult{Skip: st.name == ""}
}

func (p *nodeName) Filter(c *framework.Cycle, i int) []string {
	if c.Nodes()[i].Name != framework.State[nodeNameState](c, p.key).name {
		return reasonNodeName
	}
	return nil
}

func (p *nodeName) AppendStaticChecks(c *framework.Cycle, checks []framework.NodeCheck) []framework.NodeCheck {
	st := framework.State[nodeNameState](c, p.key)
	isNode := framework.Zeroed(&st.isNode, len(c.Nodes()))
	if n := c.Snapshot().Node(st.name); n != nil {
		isNode[n.Index()] = true
	}
	return append(checks, framework.NodeCheck{Bits: isNode, Pass: true, Reason: reasonNodeName, Key: "nodeName=" + st.name})
}

// PinnedNodeName reports whether the pod's spec.nodeName is a request to run
// there rather than the record of an earlier binding.
func PinnedNodeName(p *corev1.Pod) bool {
	if p.Spec.NodeName == "" {
		return false
	}
	if p.Status.Phase != "" && p.Status.Phase != corev1.PodPending {
		return false
	}
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionTrue {
			return false
		}
	}
	return true
}
