package framework

import (
	"encoding/json"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// sharedTables holds what a cycle derives once, for every strategy, from
// the parts of the snapshot that moves do not change: labels, taints, node
// affinity. Indexes are node positions (cluster.Node.Index), the same in
// every fork. Every per-node table is shared by all the pods with the same
// spec, so that a cluster of many replicas of few workloads computes each
// once. What one strategy alone derives is in its own state (Slot).
type sharedTables struct {
	podGroups   *cluster.PodGroups
	selections  map[string][]int32
	domains     map[string]*cluster.TopologyDomains
	placements  map[string]*Placement
	placementOf cluster.PodTable[*Placement]
	usable      []bool
	keyBuf      []byte
	// groupOf is each pod's group in the snapshot's PodGroups, by pod
	// index, and groupArgs each strategy's Args by group (see Args).
	groupOf       []int32
	groupArgs     map[string][]groupArgs
	lastGroupArgs struct {
		strategy string
		byGroup  []groupArgs
	}
	// lastPlacement is the answer for the last pod asked about, by its
	// cluster.Pod.PlacementSpecID: a workload's pods come in a row.
	lastPlacement struct {
		spec uint64
		pl   *Placement
	}
}

// EachPod calls fn for every pod, of any phase and placement, that the
// query selects, in snapshot order within each label group.
func (c *Cycle) EachPod(q cluster.PodQuery, fn func(p *cluster.Pod)) {
	if c.shared.podGroups == nil {
		c.shared.podGroups = c.Snapshot.PodGroups()
		c.shared.selections = make(map[string][]int32)
	}
	g := c.shared.podGroups
	key := q.Key()
	ids, ok := c.shared.selections[key]
	if !ok {
		ids = g.Select(q, c.Snapshot.NamespaceLabels)
		c.shared.selections[key] = ids
	}
	for _, id := range ids {
		for _, p := range g.Groups[id].Pods {
			fn(p)
		}
	}
}

// Domains numbers the values of one topology key over the snapshot's nodes,
// once per cycle (node labels do not change with moves).
func (c *Cycle) Domains(key string) *cluster.TopologyDomains {
	if d, ok := c.shared.domains[key]; ok {
		return d
	}
	d := cluster.NewTopologyDomains(c.Snapshot.Nodes(), key)
	if c.shared.domains == nil {
		c.shared.domains = make(map[string]*cluster.TopologyDomains)
	}
	c.shared.domains[key] = d
	return d
}

// Placement says, per node index, what the node's fixed properties allow a
// pod of one spec: whether the node matches its nodeSelector and required
// node affinity, whether it tolerates the node's NoSchedule and NoExecute
// taints, and whether the node is one of its possible homes (admits).
type Placement struct {
	Affinity  []bool
	Tolerated []bool
	Admits    []bool
	// homes counts the Ready nodes of the policy that admit the pod; -1
	// until asked (see Homes).
	homes int
}

// Placement returns the table of what the nodes allow the pod, shared by
// the pods of the same scheduling spec.
func (c *Cycle) Placement(p *cluster.Pod) *Placement {
	if c.NoCache {
		return c.newPlacement(p)
	}
	return c.shared.placementOf.Get(c.Snapshot, p, c.placementBySpec)
}

func (c *Cycle) placementBySpec(p *cluster.Pod) *Placement {
	if last := &c.shared.lastPlacement; last.spec != 0 && last.spec == p.PlacementSpecID() {
		return last.pl
	}
	pl := c.placementByKey(p)
	c.shared.lastPlacement.spec, c.shared.lastPlacement.pl = p.PlacementSpecID(), pl
	return pl
}

func (c *Cycle) placementByKey(p *cluster.Pod) *Placement {
	var required *corev1.NodeSelector
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		required = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	c.shared.keyBuf = placementKey(c.shared.keyBuf[:0], p.Spec.NodeSelector, required, p.Spec.Tolerations)
	if pl, ok := c.shared.placements[string(c.shared.keyBuf)]; ok {
		return pl
	}
	key := string(c.shared.keyBuf)
	pl := c.newPlacement(p)
	if c.shared.placements == nil {
		c.shared.placements = make(map[string]*Placement)
	}
	c.shared.placements[key] = pl
	return pl
}

func (c *Cycle) newPlacement(p *cluster.Pod) *Placement {
	nodes := c.Snapshot.Nodes()
	pl := &Placement{Affinity: make([]bool, len(nodes)), Tolerated: make([]bool, len(nodes)), Admits: make([]bool, len(nodes)), homes: -1}
	req := nodeaffinity.GetRequiredNodeAffinity(p.Pod)
	cordonOK := cluster.ToleratesUnschedulable(p.Pod)
	for i, n := range nodes {
		ok, err := req.Match(n.Node)
		pl.Affinity[i] = ok && err == nil
		pl.Tolerated[i] = cluster.ToleratesHardTaints(p.Pod, n.Node)
		pl.Admits[i] = pl.Affinity[i] && pl.Tolerated[i] && (cordonOK || !n.Unschedulable())
	}
	return pl
}

// placementKey appends to buf a key that tells apart any two pods whose
// node selector, required node affinity or tolerations differ: each string
// with its length before it. It is asked for each pod that a strategy
// looks for a home for, so that it writes the common parts itself; the
// rarer required affinity goes in as JSON.
func placementKey(buf []byte, selector map[string]string, required *corev1.NodeSelector, tolerations []corev1.Toleration) []byte {
	str := func(s string) {
		buf = strconv.AppendInt(buf, int64(len(s)), 10)
		buf = append(buf, ':')
		buf = append(buf, s...)
	}
	var few [8]string
	keys := few[:0]
	for k := range selector {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	buf = strconv.AppendInt(buf, int64(len(keys)), 10)
	for _, k := range keys {
		str(k)
		str(selector[k])
	}
	if required == nil {
		buf = append(buf, '-')
	} else {
		b, _ := json.Marshal(required)
		str(string(b))
	}
	return cluster.AppendTolerationsKey(buf, tolerations)
}

// Homes counts the Ready nodes of the policy that admit pods of p's spec.
func (c *Cycle) Homes(p *cluster.Pod) int {
	pl := c.Placement(p)
	if pl.homes < 0 {
		pl.homes = 0
		for _, n := range c.Selected() {
			if n.Ready() && pl.Admits[n.Index()] {
				pl.homes++
			}
		}
	}
	return pl.homes
}
