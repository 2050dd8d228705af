package framework

import (
	"encoding/json"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// NamespaceLabels returns the labels of the pod's namespace.
func (c *Cycle) NamespaceLabels() labels.Set {
	if c.nsLabels == nil {
		c.nsLabels = labels.Set(c.snap.NamespaceLabels(c.pod.Namespace))
	}
	return c.nsLabels
}

// PlacedOn returns the index of the node p holds resources on in this
// snapshot, or -1. The pod being scheduled never counts: the planner asks
// about a pod it has taken off its node.
func (c *Cycle) PlacedOn(p *cluster.Pod) int32 {
	if p == c.pod {
		return -1
	}
	if n := c.snap.NodeOf(p); n != nil {
		return int32(n.Index())
	}
	return -1
}

// NodeAffinitySelection returns, per node, whether the node matches the
// pod's spec.nodeSelector and required node affinity, or nil when the pod
// has neither; key names the selection within the snapshot family (for a
// NodeCheck's Key). NodeAffinity filters by it, and PodTopologySpread's
// nodeAffinityPolicy counts by it. Pods of a workload share the same
// spec, so the answer is kept per spec for the family.
func (c *Cycle) NodeAffinitySelection() (sel []bool, key string) {
	if c.affinitySelectionDone {
		return c.affinitySelection, c.affinitySelectionKey
	}
	c.affinitySelectionDone = true
	spec := c.pod.Spec
	var required *corev1.NodeSelector
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil {
		required = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	if len(spec.NodeSelector) == 0 && required == nil {
		return nil, ""
	}
	// Its key is kept per pod: the planner asks about the same pods again
	// and again, and writing the affinity as JSON costs more than the rest
	// of the lookup.
	key = c.fam.affinityKeys.Get(c.pod, func() string {
		js, _ := json.Marshal(required)
		return cluster.LabelKey("", spec.NodeSelector) + string(js)
	})
	c.affinitySelectionKey = key
	c.affinitySelection = c.fam.nodeSelections.Get(key, func() []bool {
		req := nodeaffinity.GetRequiredNodeAffinity(c.pod.Pod)
		match := make([]bool, len(c.nodes))
		for i, n := range c.nodes {
			match[i], _ = req.Match(n.Node)
		}
		return match
	})
	return c.affinitySelection, key
}

// TaintGroups numbers the distinct taint lists of a snapshot family's
// nodes: most nodes carry none or the same few, so tolerations are checked
// once per list instead of once per node. Order within a list is kept: it
// decides which untolerated taint a message names.
type TaintGroups struct {
	// Of is each node's group.
	Of []int32
	// Taints is each group's taint list.
	Taints [][]corev1.Taint
}

// TaintGroups returns the taint groups of the snapshot family.
func (c *Cycle) TaintGroups() *TaintGroups {
	return c.fam.taints.Get(func() *TaintGroups {
		g := &TaintGroups{Of: make([]int32, len(c.nodes))}
		ids := make(map[string]int32)
		var b strings.Builder
		for i, n := range c.nodes {
			b.Reset()
			for _, taint := range n.Spec.Taints {
				b.WriteString(taint.Key)
				b.WriteByte('=')
				b.WriteString(taint.Value)
				b.WriteByte(':')
				b.WriteString(string(taint.Effect))
				b.WriteByte(0)
			}
			key := b.String()
			id, seen := ids[key]
			if !seen {
				id = int32(len(g.Taints))
				ids[key] = id
				g.Taints = append(g.Taints, n.Spec.Taints)
			}
			g.Of[i] = id
		}
		return g
	})
}

// Untolerated is, per taint group, the first NoSchedule or NoExecute taint
// the pod does not tolerate.
type Untolerated struct {
	Groups *TaintGroups
	// First is, by group, the first such taint, or nil when the pod
	// tolerates them all.
	First []*corev1.Taint
	// Key names the pod's tolerations within the snapshot family: pods
	// with one Key have the same First.
	Key string
}

// UntoleratedTaints returns the pod's untolerated hard taints by taint
// group: TaintToleration filters by them, and PodTopologySpread's
// nodeTaintsPolicy counts by them, whether or not TaintToleration is
// enabled. The answer is kept for the family by the pod's tolerations,
// which a workload's pods share.
func (c *Cycle) UntoleratedTaints() *Untolerated {
	u := &c.untolerated
	if u.Groups != nil {
		return u
	}
	g := c.TaintGroups()
	u.Key = string(cluster.AppendTolerationsKey(nil, c.pod.Spec.Tolerations))
	u.First = c.fam.untolerated.Get(u.Key, func() []*corev1.Taint {
		first := make([]*corev1.Taint, len(g.Taints))
		for id, taints := range g.Taints {
			if taint, bad := cluster.UntoleratedHardTaint(taints, c.pod.Spec.Tolerations); bad {
				first[id] = &taint
			}
		}
		return first
	})
	u.Groups = g
	return u
}

// TopologyDomains numbers the values of one topology key over the
// family's nodes, once: counting per domain in a slice instead of a map
// keeps spread and affinity arithmetic free of hashing and of map order.
func (c *Cycle) TopologyDomains(key string) *cluster.TopologyDomains {
	return c.fam.domains.Get(key, func() *cluster.TopologyDomains {
		nodes := make([]*corev1.Node, len(c.nodes))
		for i, n := range c.nodes {
			nodes[i] = n.Node
		}
		return cluster.NewTopologyDomains(nodes, key)
	})
}

// PodGroups indexes the snapshot family's pods by namespace and labels:
// the snapshot's own index, which the strategies of a planner read too.
func (c *Cycle) PodGroups() *cluster.PodGroups {
	return c.fam.podGroups.Get(c.snap.PodGroups)
}

// SelectPodGroups returns the ids of the pod groups the query selects, in
// index order, remembered per query for the family.
func (c *Cycle) SelectPodGroups(q cluster.PodQuery) []int32 {
	g := c.PodGroups()
	return c.fam.selections.Get(q.Key(), func() []int32 { return g.Select(q, c.snap.NamespaceLabels) })
}
