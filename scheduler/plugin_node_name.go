package scheduler

import (
	corev1 "k8s.io/api/core/v1"
)

// NodeName is the plugin's name in a profile.
const NodeName = "NodeName"

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
	key StateKey
}

var _ StaticFilterPlugin = (*nodeName)(nil)

func newNodeName(_ any, h Handle) (Plugin, error) { return &nodeName{key: h.StateKey()}, nil }

// nodeNameState is the node the pod asks for, and the static check's
// per-node table, kept from cycle to cycle.
type nodeNameState struct {
	name   string
	isNode []bool
}

// Reset keeps the table's buffer.
func (s *nodeNameState) Reset() { s.name = "" }

func (*nodeName) Name() string { return NodeName }

func (p *nodeName) PreFilter(c *Cycle) PreFilterResult {
	st := State[nodeNameState](c, p.key)
	st.name = ""
	if PinnedNodeName(c.pod.Pod) {
		st.name = c.pod.Spec.NodeName
	}
	return PreFilterResult{Skip: st.name == ""}
}

func (p *nodeName) Filter(c *Cycle, i int) []string {
	if c.nodes[i].Name != State[nodeNameState](c, p.key).name {
		return reasonNodeName
	}
	return nil
}

func (p *nodeName) AppendStaticChecks(c *Cycle, checks []NodeCheck) []NodeCheck {
	st := State[nodeNameState](c, p.key)
	isNode := zeroed(&st.isNode, len(c.nodes))
	if n := c.snap.Node(st.name); n != nil {
		isNode[n.Index()] = true
	}
	return append(checks, NodeCheck{Bits: isNode, Pass: true, Reason: reasonNodeName, Key: "nodeName=" + st.name})
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
