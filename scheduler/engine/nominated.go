package engine

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// nominatedState is what one decision knows of the pods nominated to
// nodes: kube-scheduler runs a node's filters once with the nominated
// pods of equal or higher priority added to it and once without, so that
// a pod of lower priority does not take what a preemption freed for
// another (RunFilterPluginsWithNominatedPods).
type nominatedState struct {
	// on holds, by node index, the pods nominated there that count.
	on map[int32][]*cluster.Pod
	// scratch is the snapshot the nominated pods are tried on, made on
	// first use.
	scratch *cluster.Snapshot
	// failed holds why a node that passes without its nominated pods fails
	// with them.
	failed map[int32]*Rejection
}

// Rejection is why the filters turned a node down.
type Rejection struct {
	// Plugin is the filter that turned the node down, Reasons what it said.
	Plugin  string
	Reasons []string
	// Unresolvable says that removing pods from the node cannot make it
	// pass (kube-scheduler's UnschedulableAndUnresolvable).
	Unresolvable bool
}

// SamePod reports whether a and b are the same pod: a pod read from a
// file has no UID, so its name says it.
func SamePod(a, b *cluster.Pod) bool {
	if a == b {
		return true
	}
	if a.UID != "" && b.UID != "" {
		return a.UID == b.UID
	}
	return a.Key == b.Key
}

// NominatedAgainst returns, by node index, the pods nominated to a node of
// snap that hold their requests against pod: those of equal or higher
// priority, other than pod itself. Nil when there are none.
func NominatedAgainst(snap *cluster.Snapshot, pod *cluster.Pod) map[int32][]*cluster.Pod {
	var on map[int32][]*cluster.Pod
	for _, p := range snap.Nominated() {
		if p.Priority < pod.Priority || SamePod(p, pod) {
			continue
		}
		n := snap.NominatedTo(p)
		if n == nil {
			continue
		}
		if on == nil {
			on = make(map[int32][]*cluster.Pod)
		}
		on[int32(n.Index())] = append(on[int32(n.Index())], p)
	}
	return on
}

// setNominated prepares the cycle's check of nominated pods; it costs
// nothing on a snapshot without them.
func (c *cycle) setNominated() {
	if len(c.Snapshot().Nominated()) == 0 {
		return
	}
	if on := NominatedAgainst(c.Snapshot(), c.Pod()); on != nil {
		c.nominated = &nominatedState{on: on}
	}
}

// failsWithNominated reports whether node i, which passed every filter,
// fails once the pods nominated to it are added, and records why.
func (c *cycle) failsWithNominated(i int) bool {
	ns := c.nominated
	if ns == nil || len(ns.on[int32(i)]) == 0 {
		return false
	}
	if ns.scratch == nil {
		ns.scratch = c.Snapshot().Scratch()
	}
	st := c.e.filterWith(ns.scratch, c.Pod(), i, ns.on[int32(i)])
	if st == nil {
		return false
	}
	if ns.failed == nil {
		ns.failed = make(map[int32]*Rejection)
	}
	ns.failed[int32(i)] = st
	return true
}

// filterWith runs the filters for pod on node i of scratch with the pods
// extra added to the node, and takes them off again.
func (e *Engine) filterWith(scratch *cluster.Snapshot, pod *cluster.Pod, i int, extra []*cluster.Pod) *Rejection {
	name := scratch.Nodes()[i].Name
	for _, p := range extra {
		_ = scratch.Place(p, name)
	}
	st := e.filterOne(scratch, pod, i)
	for _, p := range extra {
		scratch.Remove(p)
	}
	return st
}

// FilterWithNominated is kube-scheduler's RunFilterPluginsWithNominatedPods
// on node i of scratch: PreFilter and the filters for pod with the pods
// nominated to the node added (NominatedAgainst), then without them. It
// returns why the node fails, or nil. scratch is a snapshot the caller
// may edit, such as Snapshot.Scratch, where preemption removes victims;
// the nominated pods are taken off again before it returns.
func (e *Engine) FilterWithNominated(scratch *cluster.Snapshot, pod *cluster.Pod, i int, nominated []*cluster.Pod) *Rejection {
	if len(nominated) > 0 {
		if st := e.filterWith(scratch, pod, i, nominated); st != nil {
			return st
		}
	}
	return e.filterOne(scratch, pod, i)
}

// filterOne runs PreFilter and then every filter for pod on node i of
// snap, and returns why the node fails, or nil.
func (e *Engine) filterOne(snap *cluster.Snapshot, pod *cluster.Pod, i int) *Rejection {
	c := e.newCycle(snap, pod)
	defer e.putCycle(c)
	name := c.Nodes()[i].Name
	var later []framework.FilterPlugin
	for _, f := range e.filters {
		p := f.PreFilter(&c.Cycle)
		switch {
		case p.Reject != "":
			return &Rejection{Plugin: f.Name(), Reasons: []string{p.Reject}, Unresolvable: true}
		case p.Skip:
			continue
		case p.Only != nil && !p.Only[name]:
			return &Rejection{Plugin: f.Name(), Reasons: []string{"node(s) didn't satisfy plugin(s) [" + f.Name() + "]"}, Unresolvable: true}
		}
		later = append(later, f)
	}
	for _, f := range later {
		if r := f.Filter(&c.Cycle, i); r != nil {
			return &Rejection{Plugin: f.Name(), Reasons: append([]string(nil), r...), Unresolvable: unresolvable(f, &c.Cycle, i, r)}
		}
	}
	return nil
}

// nominatedFirst is kube-scheduler's evaluateNominatedNode: a pod that a
// preemption nominated to a node goes there if it fits, without scoring
// the others. It reports the node, or false to search them all.
// Explaining a decision searches them all, so that every node is explained.
// Only a pending pod counts: kube-scheduler also records the node of a pod
// it binds there, and the planner's question about a bound pod is where a
// new pod, without that status, would go.
func (c *cycle) nominatedFirst(only map[string]bool, opts Options) (string, bool) {
	name := c.Pod().Status.NominatedNodeName
	n := c.Snapshot().Node(name)
	if name == "" || n == nil || opts.Explain || c.Pod().Spec.NodeName != "" {
		return "", false
	}
	i := n.Index()
	if c.excluded[i] || (only != nil && !only[name]) {
		return "", false
	}
	static, dynamic := c.staticFilters(c.active)
	for k := range static {
		if static[k].Rejects(i) {
			return "", false
		}
	}
	for _, k := range dynamic {
		if c.active[k].Filter(&c.Cycle, i) != nil {
			return "", false
		}
	}
	if opts.Accept != nil {
		if ok, _ := opts.Accept(n); !ok {
			return "", false
		}
	}
	if c.failsWithNominated(i) {
		return "", false
	}
	return name, true
}
