package lownodeutilization

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
	"github.com/kube-rebalancer/rebalancer/strategies/nodeutilization"
)

// lowNodeUtilization moves pods off over-utilized nodes onto under-utilized
// ones. A node is under-utilized when every listed resource is below its
// threshold, over-utilized when any is above its target; pods leave an
// over-utilized node, least important first, until it is within target or the
// under-utilized nodes have no room left.
type lowNodeUtilization struct{}

// Name is the strategy's key under strategies: in a policy.
const Name = "LowNodeUtilization"

func (lowNodeUtilization) Name() string { return Name }

// GuardRule: no target above the target thresholds of its node pool (the next run
// would move pods off it).
func (lowNodeUtilization) GuardRule(in *framework.Cycle) framework.GuardRule {
	return newLowUtilizationRule(in)
}

// streaks holds the cycle's counts of consecutive observations.
var streaks = framework.NewSlot[nodeutilization.Streaks]()

// Observe counts, with metricsUtilization.consecutiveObservations above 1,
// each node over- or under-utilized in the cluster as read; one not ready,
// unmeasured or within its band has no count.
func (s lowNodeUtilization) Observe(in *framework.Cycle) {
	args, _ := in.Policy.Global().Strategies.Get(Name).(*Args)
	if args == nil {
		return
	}
	st := streaks.Of(in)
	if *st = nodeutilization.NewStreaks(in.Snapshot, args.MetricsUtilization.Observations()); !st.Counting() {
		return
	}
	for _, g := range lowUtilizationGroups(args, in.Nodes()) {
		b := g.bands
		for _, n := range g.Nodes(in.Snapshot) {
			switch {
			case !n.Ready() || b.Meter.Unmeasured(in.Snapshot, n) != "":
			case b.IsUnder(n):
				st.Observe(in, Name, b.Meter, n, cluster.ObservedUnder)
			case b.IsOver(n):
				st.Observe(in, Name, b.Meter, n, cluster.ObservedOver)
			}
		}
	}
}

func (s lowNodeUtilization) Run(in *framework.Cycle) {
	// Thresholds classify nodes, which every namespace shares, so they are
	// always the global ones; overrides only decide which pods may move.
	args, _ := in.Policy.Global().Strategies.Get(Name).(*Args)
	if args == nil || !nodeutilization.MeterFor(args.MetricsUtilization).Measurable(in, Name) {
		return
	}
	for _, g := range lowUtilizationGroups(args, in.Nodes()) {
		s.balance(in, args, g)
	}
}

// lowUtilizationGroup is a group of nodes balanced on its own, with the
// bands that classify its nodes.
type lowUtilizationGroup struct {
	nodeutilization.NodeGroup
	bands nodeutilization.Bands
}

// lowUtilizationGroups returns the node pools, then the nodes of no pool
// when the top-level thresholds are set, each with its bands.
func lowUtilizationGroups(args *Args, nodes []*cluster.Node) []lowUtilizationGroup {
	pools := args.Pools()
	var out []lowUtilizationGroup
	for i, g := range nodeutilization.GroupByPool(pools, len(args.Thresholds) > 0, nodes) {
		low, high := args.Thresholds, args.TargetThresholds
		if i < len(pools) {
			low, high = args.NodePools[i].Thresholds, args.NodePools[i].TargetThresholds
		}
		out = append(out, lowUtilizationGroup{NodeGroup: g, bands: nodeutilization.NewBands(nodeutilization.MeterFor(args.MetricsUtilization), low, high, args.UseDeviationThresholds, g.Members(nodes))})
	}
	return out
}

// balance moves pods from the group's over-utilized nodes to its
// under-utilized ones.
func (s lowNodeUtilization) balance(in *framework.Cycle, args *Args, g lowUtilizationGroup) {
	b := g.bands
	var (
		under, over []string
		// targets holds the under-utilized nodes' indexes, in order: the
		// only nodes accept takes.
		targets []int32
	)
	st := streaks.Of(in)
	for _, n := range g.Nodes(in.Snapshot) {
		class := nodeutilization.ClassTarget
		switch {
		case !n.Ready():
			class = nodeutilization.ClassNotReady
		case b.Meter.SkipUnmeasured(in, s.Name(), n):
			class = nodeutilization.ClassUnmeasured
		case b.IsUnder(n):
			if st.Confirmed(in, Name, n, cluster.ObservedUnder) {
				under, class = append(under, n.Name), nodeutilization.ClassUnder
				targets = append(targets, int32(n.Index()))
			}
		case b.IsOver(n):
			if st.Confirmed(in, Name, n, cluster.ObservedOver) {
				over, class = append(over, n.Name), nodeutilization.ClassOver
			}
		}
		nodeutilization.LogClassified(s.Name(), g.Pool, n, class, b, true)
	}
	klog.V(2).InfoS("LowNodeUtilization: classified nodes", "pool", g.Pool, "underUtilized", len(under), "overUtilized", len(over),
		"thresholds", b.LowString(), "targets", b.HighString())
	if len(under) == 0 || len(over) == 0 {
		return
	}
	if int32(len(under)) <= args.NumberOfNodes {
		klog.V(2).InfoS("LowNodeUtilization: not enough under-utilized nodes", "pool", g.Pool, "underUtilized", len(under), "numberOfNodes", args.NumberOfNodes)
		return
	}
	slices.Sort(targets)
	underSet := make([]bool, len(in.Snapshot.Nodes()))
	for _, i := range targets {
		underSet[i] = true
	}
	// The most used nodes first: they need relief most. Each node's load
	// is worked out once, not at each comparison.
	type overNode struct {
		name string
		load float64
	}
	byLoad := make([]overNode, len(over))
	for i, name := range over {
		byLoad[i] = overNode{name, b.Load(in.Snapshot.Node(name))}
	}
	slices.SortFunc(byLoad, func(a, c overNode) int {
		switch {
		case a.load > c.load:
			return -1
		case a.load < c.load:
			return 1
		}
		return strings.Compare(a.name, c.name)
	})

	accept := func(p *cluster.Pod) func(*cluster.Node) (bool, string) {
		return func(n *cluster.Node) (bool, string) {
			if !underSet[n.Index()] {
				if g.Pool != "" {
					return false, "node(s) were not under-utilized nodes of node pool " + g.Pool
				}
				return false, "node(s) were not under-utilized"
			}
			if wouldExceed(b, n, p) {
				return false, "node(s) would go above LowNodeUtilization's target utilization"
			}
			return true, ""
		}
	}

	// The under-utilized nodes' headroom changes only when a move is
	// planned: compute it again only then, not for every candidate.
	var headroom framework.UntilChange[bool]
	hasHeadroom := func() bool {
		return headroom.Get(in, func() bool { return b.HasHeadroom(in, targets) })
	}
	// What finds no room among targets is kept for this list alone.
	var room noRoom
	var order leavers
	for _, o := range byLoad {
		if !s.relieve(in, args, g, o.name, targets, &room, &order, accept, hasHeadroom) {
			return
		}
	}
}

// relieve moves pods off one over-utilized node until it is within target.
// It reports false when no node can be relieved any more this cycle. The
// pods it could not move are skipped only as far as the node needed them:
// the fewest of them, in the order tried, that would have brought it within
// target; the others were alternatives. Those it did not propose, as no
// under-utilized node has room for them below the targets, are counted
// rather than listed: on a large cluster they are thousands.
func (s lowNodeUtilization) relieve(in *framework.Cycle, args *Args, g lowUtilizationGroup, name string, under []int32, room *noRoom, order *leavers,
	accept func(*cluster.Pod) func(*cluster.Node) (bool, string), hasHeadroom func() bool) bool {
	b := g.bands
	need := in.Need(s.Name(), 0)
	limit := args.NodeLimit()
	// Once the under-utilized nodes are full, the pods that would relieve
	// this node are still counted, for that reason; the nodes after it are
	// not looked at.
	full := false
	// The pods held without a proposal stop once those held would bring
	// the node within target: Done would not record more (moves only
	// lower what the node must shed).
	enough := false
	var whyFull, whyNoRoom string
	hold := func(p *cluster.Pod, o framework.Outcome) {
		if enough {
			return
		}
		need.HoldCounted(p, o)
		enough = needed(b, in.Snapshot.Node(name), need.Refused) < len(need.Refused)
	}
	defer func() {
		need.Pods = need.Moved + needed(b, in.Snapshot.Node(name), need.Refused)
		if limit >= 0 {
			// evictionLimits.node says how many may leave: the
			// others are not missing.
			need.Pods = min(need.Pods, limit)
		}
		need.Done()
	}()
	// What is over target on the node changes only with a move: it is
	// worked out again only then, not for every pod.
	var over framework.UntilChange[[]corev1.ResourceName]
	pods := s.podsToMove(in, args, b, in.Snapshot.Node(name), order)
	for i, p := range pods {
		if in.Done() {
			return false
		}
		if limit >= 0 && need.Moved >= limit {
			klog.V(2).InfoS("LowNodeUtilization: evictionLimits.node reached", "node", name, "limit", limit)
			break
		}
		hot := over.Get(in, func() []corev1.ResourceName { return b.OverResources(in.Snapshot.Node(name)) })
		if len(hot) == 0 {
			break // within target
		}
		if !full && !hasHeadroom() {
			klog.V(2).InfoS("LowNodeUtilization: under-utilized nodes have no headroom left", "pool", g.Pool)
			full = true
		}
		if !b.Relieves(p, hot) {
			continue // moving it would not bring the node closer to its target
		}
		if full {
			if whyFull == "" {
				whyFull = "the under-utilized nodes" + g.In() + " have no room left below LowNodeUtilization's target utilization"
			}
			if !in.Evictable(Name, p) {
				hold(p, framework.Outcome{})
			} else {
				hold(p, framework.Outcome{Category: framework.NoFit, Reason: whyFull})
			}
			continue
		}
		if !in.Evictable(Name, p) {
			// Let the planner say why, before any search for a target.
			need.Move(framework.Candidate{Pod: p, Reason: fmt.Sprintf("%s is over-utilized%s", name, g.In())})
			continue
		}
		if why := belowMinImprovement(b, args, in.Snapshot.Node(name), p, hot); why != "" {
			need.Hold(p, framework.Outcome{Category: framework.BelowMinImprovement, Reason: why})
			continue
		}
		if !fitsSomewhere(b, in, under, room, p) {
			// No under-utilized node has room for it below its target:
			// asking the scheduler would only say so at length.
			if whyNoRoom == "" {
				whyNoRoom = "no under-utilized node" + g.In() + " that admits it (taints, node affinity, the other strategies' conditions) has room for it below LowNodeUtilization's target utilization"
			}
			hold(p, framework.Outcome{Category: framework.NoFit, Reason: whyNoRoom})
			continue
		}
		if o := need.Move(framework.Candidate{
			Pod:     p,
			Reason:  fmt.Sprintf("%s is over-utilized%s (%s)", name, g.In(), b.DescribeOver(in.Snapshot.Node(name), hot)),
			Accept:  accept(p),
			Targets: under,
		}); o.Moved {
			// The excess shrank: the pods that now just cover it go
			// before bigger ones, which would take more room on the
			// targets for no fewer moves.
			order.order(b, in.Snapshot.Node(name), pods[i+1:])
		}
	}
	return !full
}

// needed counts how many of the refused pods, in order, the node would
// have had to shed to be within target: 0 when it is.
func needed(b nodeutilization.Bands, n *cluster.Node, refused []framework.Refusal) int {
	over := b.OverResources(n)
	// By position in over: it is asked after every pod held, and holds a
	// few resources.
	var fixed [4]int64
	shed := fixed[:0]
	if len(over) > len(fixed) {
		shed = make([]int64, 0, len(over))
	}
	shed = shed[:len(over)]
	within := func() bool {
		for i, r := range over {
			if cluster.Percent(b.Meter.Used(n, r)-shed[i], n.Allocatable.Get(r)) > b.High[r] {
				return false
			}
		}
		return true
	}
	if b.Meter == nodeutilization.ByScore {
		return min(1, len(refused))
	}
	for i, f := range refused {
		if within() {
			return i
		}
		for i, r := range over {
			shed[i] += b.Meter.Pod(f.Pod, r)
		}
	}
	return len(refused)
}

// podsToMove returns the node's pods this strategy may move, in the order
// they should leave (leavers.order), in order's buffer: until the next
// node's.
func (lowNodeUtilization) podsToMove(in *framework.Cycle, args *Args, b nodeutilization.Bands, n *cluster.Node, order *leavers) []*cluster.Pod {
	pods := order.pods[:0]
	for _, p := range n.Pods() {
		// A terminating pod is on its way out: it relieves the node
		// without an eviction.
		// Most policies narrow no namespaces: the pod's object, where its
		// namespace is, need not be read then.
		if !p.IsTerminating() && in.Args(Name, p) != nil &&
			(args.EvictableNamespaces == nil || args.EvictableNamespaces.Allows(p.Namespace)) {
			pods = append(pods, p)
		}
	}
	order.pods = pods
	order.order(b, n, pods)
	return pods
}

// lowUtilizationRule keeps every move from taking its target above the
// target thresholds of the target's node pool: that node would be
// over-utilized, and the next cycle would move pods off it again.
type lowUtilizationRule struct {
	m nodeutilization.Meter
	// targets holds, by node index, the target of each listed resource of
	// the node's group; nil for a node in no group. The planner asks for
	// every node of every placement: no map on the way.
	targets [][]resourceLimit
}

type resourceLimit struct {
	name  corev1.ResourceName
	limit float64
}

func newLowUtilizationRule(in *framework.Cycle) framework.GuardRule {
	args, _ := in.Policy.Global().Strategies.Get(Name).(*Args)
	if args == nil {
		return nil
	}
	r := &lowUtilizationRule{m: nodeutilization.MeterFor(args.MetricsUtilization), targets: make([][]resourceLimit, len(in.Snapshot.Nodes()))}
	for _, g := range lowUtilizationGroups(args, in.Nodes()) {
		limits := make([]resourceLimit, len(g.bands.Resources))
		for i, res := range g.bands.Resources {
			limits[i] = resourceLimit{res, g.bands.High[res]}
		}
		for _, name := range g.Names {
			r.targets[in.Snapshot.Node(name).Index()] = limits
		}
	}
	return r
}

func (r *lowUtilizationRule) Check(_ framework.View, _ string, p *cluster.Pod, n *cluster.Node) (bool, string) {
	for _, t := range r.targets[n.Index()] {
		over := cluster.Percent(r.m.Used(n, t.name)+r.m.Pod(p, t.name), n.Allocatable.Get(t.name)) > t.limit
		if r.m == nodeutilization.ByScore {
			over = n.Score != nil && n.ScorePercent() > t.limit
		}
		if over {
			return false, "node(s) would go above LowNodeUtilization's target utilization"
		}
	}
	return true, ""
}

// RefusesEveryPod reports whether the node is above a target already: a
// pod's requests and usage are never negative, so that any pod would keep
// it there.
func (r *lowUtilizationRule) RefusesEveryPod(n *cluster.Node) bool {
	for _, t := range r.targets[n.Index()] {
		over := cluster.Percent(r.m.Used(n, t.name), n.Allocatable.Get(t.name)) > t.limit
		if r.m == nodeutilization.ByScore {
			over = n.Score != nil && n.ScorePercent() > t.limit
		}
		if over {
			return true
		}
	}
	return false
}

// fitsSomewhere reports whether one of the nodes, by index, could take the pod
// as far as cheap checks tell: one of its homes (taints, node affinity,
// cordon) that it may stay on (no NoExecute taint it tolerates only for a
// while), with room for its cpu, memory and one more pod, within every
// target and the guard. The scheduler's verdict on the rest is costly
// (every node, every filter) and only worth asking when this holds.
func fitsSomewhere(b nodeutilization.Bands, in *framework.Cycle, under []int32, room *noRoom, p *cluster.Pod) bool {
	pl := in.Placement(p)
	admits := pl.Admits
	key, keyed := roomKeyOf(b, pl, p)
	if keyed && !in.NoCache && room.holds(in, key) {
		return false
	}
	v := in.Now()
	nodes := in.Snapshot.Nodes()
	cheapOnly := true
	for _, i := range under {
		n := nodes[i]
		// The node's own counts first: its taints are in its object,
		// which most nodes need not be read for.
		if !admits[i] || !nodeutilization.HasRoom(n, p) || wouldExceed(b, n, p) || framework.StaysOnlyAWhile(p, n) {
			continue
		}
		cheapOnly = false
		if !in.GuardAdmits(v, Name, p, n) {
			continue
		}
		return true
	}
	if keyed && cheapOnly {
		room.add(in, key)
	}
	return false
}

// roomKey is what the cheap checks of fitsSomewhere read of a pod: its
// homes and tolerations (the placement table), its cpu and memory requests
// and what the meter counts of it. False when the bands list more
// resources than the key holds.
func roomKeyOf(b nodeutilization.Bands, pl *framework.Placement, p *cluster.Pod) (roomKey, bool) {
	k := roomKey{pl: pl, cpu: p.SpecRequests.MilliCPU, memory: p.SpecRequests.Memory}
	if len(b.Resources) > len(k.metered) {
		return k, false
	}
	for i, r := range b.Resources {
		k.metered[i] = b.Meter.Pod(p, r)
	}
	return k, true
}

type roomKey struct {
	pl          *framework.Placement
	cpu, memory int64
	metered     [4]int64
}

// noRoom remembers the pods for which no node of one list of
// under-utilized nodes passed fitsSomewhere's cheap checks, which read only
// those nodes' state: until a move changes it, a pod alike for the checks
// finds no room either. A crowded node's replicas are tried one after
// another, and a round with no move tries them all again. Each list has
// its own: balance makes one beside the list it makes.
type noRoom struct {
	changes uint64
	keys    map[roomKey]bool
}

func (r *noRoom) holds(in *framework.Cycle, k roomKey) bool {
	return r.changes == in.Changes() && r.keys[k]
}

func (r *noRoom) add(in *framework.Cycle, k roomKey) {
	if r.changes != in.Changes() {
		r.changes = in.Changes()
		clear(r.keys)
	}
	if r.keys == nil {
		r.keys = make(map[roomKey]bool)
	}
	r.keys[k] = true
}

// wouldExceed reports whether the node, with the pod's replacement added,
// is above any target.
func wouldExceed(b nodeutilization.Bands, n *cluster.Node, p *cluster.Pod) bool {
	if b.Meter == nodeutilization.ByScore {
		// How much a pod adds to the query's value is unknown until it is
		// measured: a node takes one pod a cycle.
		return n.Arrived() > 0
	}
	for _, r := range b.Resources {
		if cluster.Percent(b.Meter.Used(n, r)+b.Meter.Pod(p, r), n.Allocatable.Get(r)) > b.High[r] {
			return true
		}
	}
	return false
}
