package removeduplicates

import (
	"fmt"
	"slices"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// removeDuplicates spreads the pods of one workload that pile up on one
// node. Pods are duplicates when they belong to the same workload and run
// the same container images; a node may hold ceil(total / nodes where they
// fit) of them, and the extra ones move to nodes that hold fewer.
type removeDuplicates struct{}

// Name is the strategy's key under strategies: in a policy.
const Name = "RemoveDuplicates"

func (removeDuplicates) Name() string { return Name }

// GuardRule: no target that already holds its share of the pod's
// duplicates.
func (removeDuplicates) GuardRule(in *framework.Cycle) framework.GuardRule {
	return &duplicatesRule{in: in}
}

func (s removeDuplicates) Run(in *framework.Cycle) {
	for _, w := range in.Snapshot.Workloads() {
		for _, group := range s.groups(in, w) {
			s.spread(in, w, group)
		}
	}
}

// groupedAsDuplicate reports whether RemoveDuplicates counts the pod among
// its workload's duplicates.
func groupedAsDuplicate(in *framework.Cycle, p *cluster.Pod) bool {
	if p.Workload.IsZero() {
		return false
	}
	a, ok := in.Args(Name, p).(*Args)
	return ok && !excludedOwner(a, p)
}

// groups returns the workload's pods this strategy may move, that hold a
// node it balances across and are not terminating, grouped by their set of
// container images, in a stable order. A terminating pod is no replica any
// more: counting it would evict a healthy one beside it during every
// rollout. Pods on nodes the policy does not select, or that are not Ready,
// are left out as the descheduler leaves them out: counted against a share
// of the nodes balanced, they would raise it and keep the crowded node
// crowded.
func (removeDuplicates) groups(in *framework.Cycle, w cluster.Workload) [][]*cluster.Pod {
	var (
		pods  []*cluster.Pod
		keys  []string
		mixed bool
	)
	usable := in.Usable()
	for _, p := range in.Snapshot.PodsOf(w) {
		n := in.Snapshot.NodeOf(p)
		if n == nil || !usable[n.Index()] || p.IsTerminating() || !groupedAsDuplicate(in, p) {
			continue
		}
		k := imageKey(in, p)
		mixed = mixed || len(keys) > 0 && k != keys[0]
		pods, keys = append(pods, p), append(keys, k)
	}
	if len(pods) < 2 {
		return nil
	}
	// Most workloads run one set of images: their pods are one group.
	if !mixed {
		return [][]*cluster.Pod{pods}
	}
	byImages := make(map[string][]*cluster.Pod)
	var distinct []string
	for i, p := range pods {
		k := keys[i]
		if _, seen := byImages[k]; !seen {
			distinct = append(distinct, k)
		}
		byImages[k] = append(byImages[k], p)
	}
	slices.Sort(distinct)
	var groups [][]*cluster.Pod
	for _, k := range distinct {
		if len(byImages[k]) > 1 {
			groups = append(groups, byImages[k])
		}
	}
	return groups
}

// duplicateShare is how many pods of a group of size pods one node may
// hold: the group spread evenly over the Ready nodes where it fits.
func duplicateShare(in *framework.Cycle, p *cluster.Pod, size int) (share, homes int) {
	homes = in.Homes(p)
	if homes == 0 {
		return size, 0
	}
	return (size + homes - 1) / homes, homes
}

// spread moves the pods of one group off the nodes that hold more than their
// share.
func (s removeDuplicates) spread(in *framework.Cycle, w cluster.Workload, group []*cluster.Pod) {
	share, homes := duplicateShare(in, group[0], len(group))
	if homes == 0 {
		return
	}

	// counts is recomputed before each proposal: the previous one may have
	// moved a pod of the group. It is by node index, since the target's
	// condition is asked for every node a placement looks at, and held in
	// one table for the cycle, of which only the group's nodes are set.
	tab := &cycleCaches.Of(in).duplicates
	if len(tab.counts) != len(in.Snapshot.Nodes()) {
		tab.counts = make([]int32, len(in.Snapshot.Nodes()))
	}
	counts := func() []int32 {
		for _, i := range tab.set {
			tab.counts[i] = 0
		}
		tab.set = tab.set[:0]
		for _, p := range group {
			if n := in.Snapshot.NodeOf(p); n != nil {
				if tab.counts[n.Index()] == 0 {
					tab.set = append(tab.set, int32(n.Index()))
				}
				tab.counts[n.Index()]++
			}
		}
		return tab.counts
	}

	// The crowded nodes, in name order (the order of their indexes), each
	// with its pods of the group in the group's order. Most groups crowd
	// no node and stop here.
	var crowded []int32
	initial := counts()
	for _, i := range tab.set {
		if int(initial[i]) > share {
			crowded = append(crowded, i)
		}
	}
	if len(crowded) == 0 {
		return
	}
	slices.Sort(crowded)
	podsOn := make([][]*cluster.Pod, len(crowded))
	for _, p := range group {
		if k, ok := slices.BinarySearch(crowded, int32(in.Snapshot.NodeOf(p).Index())); ok {
			podsOn[k] = append(podsOn[k], p)
		}
	}
	for k, at32 := range crowded {
		pods, at := podsOn[k], int(at32)
		name := in.Snapshot.Nodes()[at].Name
		// The least important and the youngest go first.
		slices.SortStableFunc(pods, framework.LeaveOrder)
		// The node needs len(pods)-share of them gone; the others are
		// tried in turn only when one is refused.
		need := in.Need(s.Name(), len(pods)-share)
		if holdBelowMinImprovement(in, need, w, name, pods, share) {
			continue
		}
		// sibling is the last of these pods that found no node, while
		// nothing has moved since: its Accept was the same as the next
		// one's.
		var sibling *cluster.Pod
		var siblingAt uint64
		for _, p := range pods {
			now := counts()
			if int(now[at]) <= share {
				break
			}
			if in.Changes() != siblingAt {
				sibling = nil
			}
			o := need.Move(framework.Candidate{
				Pod: p,
				Reason: fmt.Sprintf("%d pods of %s with the same images on %s; at most %d per node across the %d nodes where they fit",
					now[at], w, name, share, homes),
				Accept: func(n *cluster.Node) (bool, string) {
					if int(now[n.Index()])+1 > share {
						return false, "node(s) already had their share of the workload's pods"
					}
					return true, ""
				},
				Targets: in.GuardTargets(),
				Sibling: sibling,
			})
			// A pod refused before any search (protected, no budget)
			// leaves the last one that fit nowhere the sibling.
			if o.Category == framework.NoFit {
				sibling, siblingAt = p, in.Changes()
			}
		}
		need.Done()
	}
}

func excludedOwner(a *Args, p *cluster.Pod) bool {
	c := p.Controller()
	for _, k := range a.ExcludeOwnerKinds {
		if (c != nil && c.Kind == k) || p.Workload.Kind == k {
			return true
		}
	}
	return false
}

// duplicatesRule keeps every move from giving a node more than its share
// of a group of duplicates, which RemoveDuplicates would move away again.
type duplicatesRule struct {
	in *framework.Cycle
	// What the last pod asked about needs, in the last view: the planner
	// asks for every node of a placement in a row.
	v      framework.View
	pod    *cluster.Pod
	active bool
	share  int32
	counts []int32 // by node index
	// refusal is the reason for a node that holds its share: one string
	// for every node a placement refuses.
	refusal string
	// groups holds the pods of each workload's group of duplicates that
	// are not terminating, by what moves do not change: its workload and
	// images.
	groups map[duplicateGroup][]*cluster.Pod
}

type duplicateGroup struct {
	workload cluster.Workload
	images   string
}

// group returns the pods of p's group of duplicates, terminating ones
// left out, wherever they run.
func (r *duplicatesRule) group(v framework.View, p *cluster.Pod) []*cluster.Pod {
	in := r.in
	k := duplicateGroup{p.Workload, imageKey(in, p)}
	if g, ok := r.groups[k]; ok {
		return g
	}
	var g []*cluster.Pod
	for _, m := range v.Snapshot.PodsOf(p.Workload) {
		if imageKey(in, m) == k.images && !m.IsTerminating() && groupedAsDuplicate(in, m) {
			g = append(g, m)
		}
	}
	if r.groups == nil {
		r.groups = make(map[duplicateGroup][]*cluster.Pod)
	}
	r.groups[k] = g
	return g
}

func (r *duplicatesRule) Check(v framework.View, _ string, p *cluster.Pod, n *cluster.Node) (bool, string) {
	if r.v != v || r.pod != p {
		r.v, r.pod = v, p
		r.prepare(v, p)
	}
	if r.active && r.counts[n.Index()]+1 > r.share {
		return false, r.refusal
	}
	return true, ""
}

// prepare counts, per node, the pods of p's group other than p, those the
// strategy leaves out (terminating, or on a node it does not balance
// across) left out.
func (r *duplicatesRule) prepare(v framework.View, p *cluster.Pod) {
	in := r.in
	r.active = false
	if !groupedAsDuplicate(in, p) {
		return
	}
	if r.counts == nil {
		r.counts = make([]int32, len(v.Snapshot.Nodes()))
	}
	clear(r.counts)
	size := 0
	for _, m := range r.group(v, p) {
		node := v.Snapshot.NodeOf(m)
		if m != p && (node == nil || !in.Usable()[node.Index()]) {
			continue
		}
		size++
		if node != nil && m != p {
			r.counts[node.Index()]++
		}
	}
	share, homes := duplicateShare(in, p, size)
	r.active, r.share = size >= 2 && homes > 0, int32(share)
	if r.active {
		r.refusal = fmt.Sprintf("node(s) already had their share of the workload's pods (RemoveDuplicates: %d per node)", r.share)
	}
}
