package defragment

import (
	"slices"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// movers holds, for one run of the strategy, the pods it could move, in
// order of preference, node by node. The order depends only on the pods'
// specs, so it is found once; which node holds which pod changes with each
// move, so the lists by node are made again after a change of the cycle.
// Whether the planner lets a pod move now is asked later, of the few nodes
// the search walks.
type movers struct {
	in *framework.Cycle
	// ranked lists the pods a controller replaces, the preferred first.
	ranked []*cluster.Pod
	// rank is each ranked pod's position, by pod index; -1 for the others.
	rank []int32
	// byNode holds the ranked pods node by node, node i's in
	// byNode[start[i]:start[i+1]], as the cycle stood at epoch.
	byNode []*cluster.Pod
	start  []int32
	epoch  uint64
	built  bool
	// last is the run's last search, whose buffers the next one reuses.
	last search
}

func newMovers(in *framework.Cycle) *movers {
	m := &movers{in: in, rank: make([]int32, len(in.Snapshot.Pods()))}
	for i, p := range in.Snapshot.Pods() {
		m.rank[i] = -1
		if p.Controller() != nil && !p.IsTerminal() && !p.IsTerminating() && p.Spec.NodeName != "" {
			m.ranked = append(m.ranked, p)
		}
	}
	slices.SortFunc(m.ranked, prefer)
	for r, p := range m.ranked {
		m.rank[p.Index()] = int32(r)
	}
	return m
}

// on returns the ranked pods on node i as the cycle stands, the preferred
// first.
func (m *movers) on(i int) []*cluster.Pod {
	if !m.built || m.epoch != m.in.Changes() {
		m.index()
	}
	return m.byNode[m.start[i]:m.start[i+1]]
}

// index sorts the ranked pods by node, keeping their order.
func (m *movers) index() {
	snap := m.in.Snapshot
	nodes := len(snap.Nodes())
	if m.start == nil {
		m.start = make([]int32, nodes+1)
		m.byNode = make([]*cluster.Pod, len(m.ranked))
	}
	clear(m.start)
	for _, p := range m.ranked {
		if n := snap.NodeOf(p); n != nil {
			m.start[n.Index()+1]++
		}
	}
	for i := range nodes {
		m.start[i+1] += m.start[i]
	}
	next := slices.Clone(m.start[:nodes])
	for _, p := range m.ranked {
		if n := snap.NodeOf(p); n != nil {
			m.byNode[next[n.Index()]] = p
			next[n.Index()]++
		}
	}
	m.epoch, m.built = m.in.Changes(), true
}
