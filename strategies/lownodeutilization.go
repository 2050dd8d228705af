package strategies

import (
	"fmt"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
)

// lowNodeUtilization moves pods off over-utilized nodes onto under-utilized
// ones. A node is under-utilized when every listed resource is below its
// threshold, over-utilized when any is above its target; pods leave an
// over-utilized node, least important first, until it is within target or the
// under-utilized nodes have no room left.
type lowNodeUtilization struct{}

// lowNodeUtilizationName is the strategy's key under strategies: in a policy.
const lowNodeUtilizationName = "LowNodeUtilization"

func (lowNodeUtilization) Name() string { return lowNodeUtilizationName }

// guardRule: no target above the target thresholds of its node pool (the next run
// would move pods off it).
func (lowNodeUtilization) guardRule(in *Input) guardRule { return newLowUtilizationRule(in) }

func (s lowNodeUtilization) Run(in *Input) {
	// Thresholds classify nodes, which every namespace shares, so they are
	// always the global ones; overrides only decide which pods may move.
	args, _ := in.Policy.Global().Strategies.Get(lowNodeUtilizationName).(*policy.LowNodeUtilizationArgs)
	if args == nil || !meterFor(args.MetricsUtilization).measurable(in, lowNodeUtilizationName) {
		return
	}
	for _, g := range lowUtilizationGroups(args, in.Nodes()) {
		s.balance(in, args, g)
	}
}

// lowUtilizationGroup is a group of nodes balanced on its own, with the
// bands that classify its nodes.
type lowUtilizationGroup struct {
	nodeGroup
	bands bands
}

// lowUtilizationGroups returns the node pools, then the nodes of no pool
// when the top-level thresholds are set, each with its bands.
func lowUtilizationGroups(args *policy.LowNodeUtilizationArgs, nodes []*cluster.Node) []lowUtilizationGroup {
	pools := args.Pools()
	var out []lowUtilizationGroup
	for i, g := range groupByPool(pools, len(args.Thresholds) > 0, nodes) {
		low, high := args.Thresholds, args.TargetThresholds
		if i < len(pools) {
			low, high = args.NodePools[i].Thresholds, args.NodePools[i].TargetThresholds
		}
		out = append(out, lowUtilizationGroup{nodeGroup: g, bands: newBands(meterFor(args.MetricsUtilization), low, high, args.UseDeviationThresholds, g.members(nodes))})
	}
	return out
}

// balance moves pods from the group's over-utilized nodes to its
// under-utilized ones.
func (s lowNodeUtilization) balance(in *Input, args *policy.LowNodeUtilizationArgs, g lowUtilizationGroup) {
	b := g.bands
	var (
		under, over []string
		// targets holds the under-utilized nodes' indexes, in order: the
		// only nodes accept takes.
		targets []int32
	)
	for _, n := range g.nodes(in.Snapshot) {
		class := classTarget
		switch {
		case !n.Ready():
			class = classNotReady
		case b.m.skipUnmeasured(in, s.Name(), n):
			class = classUnmeasured
		case b.isUnder(n):
			under, class = append(under, n.Name), classUnder
			targets = append(targets, int32(n.Index()))
		case b.isOver(n):
			over, class = append(over, n.Name), classOver
		}
		logClassified(s.Name(), g.pool, n, class, b, true)
	}
	klog.V(2).InfoS("LowNodeUtilization: classified nodes", "pool", g.pool, "underUtilized", len(under), "overUtilized", len(over),
		"thresholds", b.lowString(), "targets", b.highString())
	if len(under) == 0 || len(over) == 0 {
		return
	}
	if int32(len(under)) <= args.NumberOfNodes {
		klog.V(2).InfoS("LowNodeUtilization: not enough under-utilized nodes", "pool", g.pool, "underUtilized", len(under), "numberOfNodes", args.NumberOfNodes)
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
		byLoad[i] = overNode{name, b.load(in.Snapshot.Node(name))}
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
				if g.pool != "" {
					return false, "node(s) were not under-utilized nodes of node pool " + g.pool
				}
				return false, "node(s) were not under-utilized"
			}
			if b.wouldExceed(n, p) {
				return false, "node(s) would go above LowNodeUtilization's target utilization"
			}
			return true, ""
		}
	}

	// The under-utilized nodes' headroom changes only when a move is
	// planned: compute it again only then, not for every candidate.
	var headroom untilChange[bool]
	hasHeadroom := func() bool {
		return headroom.get(in, func() bool { return b.hasHeadroom(in, targets) })
	}
	// What finds no room among targets is kept for this list alone.
	var room noRoom
	for _, o := range byLoad {
		if !s.relieve(in, args, g, o.name, targets, &room, accept, hasHeadroom) {
			return
		}
	}
}

// relieve moves pods off one over-utilized node until it is within target.
// It reports false when no node can be relieved any more this cycle. The
// pods it could not move are skipped only as far as the node needed them:
// the fewest of them, in the order tried, that would have brought it within
// target; the others were alternatives.
func (s lowNodeUtilization) relieve(in *Input, args *policy.LowNodeUtilizationArgs, g lowUtilizationGroup, name string, under []int32, room *noRoom,
	accept func(*cluster.Pod) func(*cluster.Node) (bool, string), hasHeadroom func() bool) bool {
	b := g.bands
	need := in.want(s.Name(), 0)
	limit := args.NodeLimit()
	defer func() {
		need.need = need.moved + b.needed(in.Snapshot.Node(name), need.refused)
		if limit >= 0 {
			// evictionLimits.node says how many may leave: the
			// others are not missing.
			need.need = min(need.need, limit)
		}
		need.done()
	}()
	// What is over target on the node changes only with a move: it is
	// worked out again only then, not for every pod.
	var over untilChange[[]corev1.ResourceName]
	for _, p := range s.podsToMove(in, args, in.Snapshot.Node(name)) {
		if in.Done() {
			return false
		}
		if limit >= 0 && need.moved >= limit {
			klog.V(2).InfoS("LowNodeUtilization: evictionLimits.node reached", "node", name, "limit", limit)
			break
		}
		hot := over.get(in, func() []corev1.ResourceName { return b.overResources(in.Snapshot.Node(name)) })
		if len(hot) == 0 {
			break // within target
		}
		if !hasHeadroom() {
			klog.V(2).InfoS("LowNodeUtilization: under-utilized nodes have no headroom left", "pool", g.pool)
			return false
		}
		if !b.relieves(p, hot) {
			continue // moving it would not bring the node closer to its target
		}
		if !in.evictable(lowNodeUtilizationName, p) {
			// Let the planner say why, before any search for a target.
			need.move(Candidate{Pod: p, Reason: fmt.Sprintf("%s is over-utilized%s", name, g.in())})
			continue
		}
		if !b.fitsSomewhere(in, under, room, p) {
			// No under-utilized node has room for it below its target:
			// asking the scheduler would only say so at length.
			continue
		}
		need.move(Candidate{
			Pod:     p,
			Reason:  fmt.Sprintf("%s is over-utilized%s (%s)", name, g.in(), b.describeOver(in.Snapshot.Node(name), hot)),
			Accept:  accept(p),
			Targets: under,
		})
	}
	return true
}

// needed counts how many of the refused pods, in order, the node would
// have had to shed to be within target: 0 when it is.
func (b bands) needed(n *cluster.Node, refused []refusal) int {
	over := b.overResources(n)
	shed := make(map[corev1.ResourceName]int64, len(over))
	within := func() bool {
		for _, r := range over {
			if cluster.Percent(b.m.used(n, r)-shed[r], n.Allocatable.Get(r)) > b.high[r] {
				return false
			}
		}
		return true
	}
	if b.m == byScore {
		return min(1, len(refused))
	}
	for i, f := range refused {
		if within() {
			return i
		}
		for _, r := range over {
			shed[r] += b.m.pod(f.pod, r)
		}
	}
	return len(refused)
}

// podsToMove returns the node's pods this strategy may move, in the order
// they should leave: lowest priority first, then BestEffort before Burstable
// before Guaranteed.
func (lowNodeUtilization) podsToMove(in *Input, args *policy.LowNodeUtilizationArgs, n *cluster.Node) []*cluster.Pod {
	var pods []*cluster.Pod
	for _, p := range n.Pods() {
		// A terminating pod is on its way out: it relieves the node
		// without an eviction.
		// Most policies narrow no namespaces: the pod's object, where its
		// namespace is, need not be read then.
		if !p.IsTerminating() && in.Args(lowNodeUtilizationName, p) != nil &&
			(args.EvictableNamespaces == nil || args.EvictableNamespaces.Allows(p.Namespace)) {
			pods = append(pods, p)
		}
	}
	slices.SortStableFunc(pods, func(a, c *cluster.Pod) int {
		if a.Priority != c.Priority {
			if a.Priority < c.Priority {
				return -1
			}
			return 1
		}
		if qa, qc := qosRank(a.QoS), qosRank(c.QoS); qa != qc {
			return qa - qc
		}
		return strings.Compare(a.Key, c.Key)
	})
	return pods
}

func qosRank(q corev1.PodQOSClass) int {
	switch q {
	case corev1.PodQOSBestEffort:
		return 0
	case corev1.PodQOSBurstable:
		return 1
	}
	return 2
}

// relieves reports whether the pod takes any of the resources from its
// node, as the meter counts them; any pod may relieve a node a query rates.
func (b bands) relieves(p *cluster.Pod, resources []corev1.ResourceName) bool {
	if b.m == byScore {
		return true
	}
	for _, r := range resources {
		if b.m.pod(p, r) > 0 {
			return true
		}
	}
	return false
}

// name is how a resource is named in a reason: usage is marked, so that a
// reader does not take it for requests.
func (b bands) name(r corev1.ResourceName) string {
	switch b.m {
	case byUsage:
		if cluster.IsMeasured(r) {
			return string(r) + " usage"
		}
	case byScore:
		return "query"
	}
	return string(r)
}

// bands are the utilization limits, in percent, that classify nodes: below
// low is under-utilized, above high is over-utilized.
type bands struct {
	m         meter
	resources []corev1.ResourceName
	low, high map[corev1.ResourceName]float64
}

// newBands turns thresholds into absolute limits. With deviation thresholds
// the limits are the mean utilization of the nodes minus and plus the
// thresholds, so that "balanced" means close to the average.
func newBands(m meter, low, high policy.ResourceThresholds, deviation bool, nodes []*cluster.Node) bands {
	b := bands{m: m, low: map[corev1.ResourceName]float64{}, high: map[corev1.ResourceName]float64{}}
	for _, name := range low.Names() {
		r := corev1.ResourceName(name)
		b.resources = append(b.resources, r)
		b.low[r], b.high[r] = low[name], high[name]
		if deviation {
			mean := meanUtilization(m, nodes, r)
			b.low[r] = math.Max(0, mean-low[name])
			b.high[r] = math.Min(100, mean+high[name])
		}
	}
	return b
}

func meanUtilization(m meter, nodes []*cluster.Node, r corev1.ResourceName) float64 {
	var sum float64
	var n int
	for _, node := range nodes {
		if !node.Ready() || (m == byUsage && node.Usage == nil) || (m == byScore && node.Score == nil) {
			continue
		}
		if u := m.util(node, r); !math.IsInf(u, 0) {
			sum += u
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// isUnder: every listed resource below its threshold, and the node takes
// pods (a cordoned node is never a destination).
func (b bands) isUnder(n *cluster.Node) bool {
	return !n.Unschedulable() && b.isBelow(n)
}

// isBelow: every listed resource below its threshold.
func (b bands) isBelow(n *cluster.Node) bool {
	for _, r := range b.resources {
		if b.m.util(n, r) >= b.low[r] {
			return false
		}
	}
	return true
}

func (b bands) isOver(n *cluster.Node) bool { return len(b.overResources(n)) > 0 }

// overResources lists the resources above their target on the node.
func (b bands) overResources(n *cluster.Node) []corev1.ResourceName {
	var over []corev1.ResourceName
	if b.m == byScore && n.Left() > 0 {
		// A query rates the node, not its pods: how much one pod's leaving
		// relieves it is unknown until it is measured again, so one pod
		// leaves each node a cycle, as in the descheduler.
		return nil
	}
	for _, r := range b.resources {
		if b.m.util(n, r) > b.high[r] {
			over = append(over, r)
		}
	}
	return over
}

// load orders over-utilized nodes: the sum of their utilization above
// target.
func (b bands) load(n *cluster.Node) float64 {
	var sum float64
	for _, r := range b.overResources(n) {
		sum += math.Min(b.m.util(n, r), 1000) - b.high[r]
	}
	return sum
}

// hasHeadroom reports whether the under-utilized nodes, together, can still
// take some of every listed resource below their targets.
func (b bands) hasHeadroom(in *Input, under []int32) bool {
	nodes := in.Snapshot.Nodes()
	if b.m == byScore {
		for _, i := range under {
			if nodes[i].Arrived() == 0 {
				return true
			}
		}
		return false
	}
	for _, r := range b.resources {
		var room float64
		high := b.high[r]
		for _, i := range under {
			n := nodes[i]
			room += high*float64(n.Allocatable.Get(r))/100 - float64(b.m.used(n, r))
		}
		if room <= 0 {
			return false
		}
	}
	return true
}

func (b bands) describeOver(n *cluster.Node, over []corev1.ResourceName) string {
	parts := make([]string, len(over))
	for i, r := range over {
		parts[i] = fmt.Sprintf("%s %s > %s", b.name(r), pct(b.m.util(n, r)), pct(b.high[r]))
	}
	return strings.Join(parts, ", ")
}

func (b bands) lowString() string  { return b.format(b.low) }
func (b bands) highString() string { return b.format(b.high) }

func (b bands) format(m map[corev1.ResourceName]float64) string {
	parts := make([]string, len(b.resources))
	for i, r := range b.resources {
		parts[i] = fmt.Sprintf("%s=%s", b.name(r), pct(m[r]))
	}
	return strings.Join(parts, ", ")
}

// pct formats a percentage with at most one decimal.
func pct(v float64) string {
	if math.IsInf(v, 1) {
		return "∞%"
	}
	return fmt.Sprintf("%s%%", trimFloat(math.Round(v*10)/10))
}

func trimFloat(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", v), "0"), ".")
}

// lowUtilizationRule keeps every move from taking its target above the
// target thresholds of the target's node pool: that node would be
// over-utilized, and the next cycle would move pods off it again.
type lowUtilizationRule struct {
	m meter
	// targets holds, by node index, the target of each listed resource of
	// the node's group; nil for a node in no group. The planner asks for
	// every node of every placement: no map on the way.
	targets [][]resourceLimit
}

type resourceLimit struct {
	name  corev1.ResourceName
	limit float64
}

func newLowUtilizationRule(in *Input) guardRule {
	args, _ := in.Policy.Global().Strategies.Get(lowNodeUtilizationName).(*policy.LowNodeUtilizationArgs)
	if args == nil {
		return nil
	}
	r := &lowUtilizationRule{m: meterFor(args.MetricsUtilization), targets: make([][]resourceLimit, len(in.Snapshot.Nodes()))}
	for _, g := range lowUtilizationGroups(args, in.Nodes()) {
		limits := make([]resourceLimit, len(g.bands.resources))
		for i, res := range g.bands.resources {
			limits[i] = resourceLimit{res, g.bands.high[res]}
		}
		for _, name := range g.names {
			r.targets[in.Snapshot.Node(name).Index()] = limits
		}
	}
	return r
}

func (r *lowUtilizationRule) check(_ view, _ string, p *cluster.Pod, n *cluster.Node) (bool, string) {
	for _, t := range r.targets[n.Index()] {
		over := cluster.Percent(r.m.used(n, t.name)+r.m.pod(p, t.name), n.Allocatable.Get(t.name)) > t.limit
		if r.m == byScore {
			over = n.Score != nil && n.ScorePercent() > t.limit
		}
		if over {
			return false, "node(s) would go above LowNodeUtilization's target utilization"
		}
	}
	return true, ""
}

// refusesEveryPod reports whether the node is above a target already: a
// pod's requests and usage are never negative, so that any pod would keep
// it there.
func (r *lowUtilizationRule) refusesEveryPod(n *cluster.Node) bool {
	for _, t := range r.targets[n.Index()] {
		over := cluster.Percent(r.m.used(n, t.name), n.Allocatable.Get(t.name)) > t.limit
		if r.m == byScore {
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
func (b bands) fitsSomewhere(in *Input, under []int32, room *noRoom, p *cluster.Pod) bool {
	pl := in.placement(p)
	admits := pl.admits
	key, keyed := b.roomKey(pl, p)
	if keyed && !in.NoCache && room.holds(in, key) {
		return false
	}
	v := in.now()
	nodes := in.Snapshot.Nodes()
	cheapOnly := true
	for _, i := range under {
		n := nodes[i]
		// The node's own counts first: its taints are in its object,
		// which most nodes need not be read for.
		if !admits[i] || !hasRoom(n, p) || b.wouldExceed(n, p) || staysOnlyAWhile(p, n) {
			continue
		}
		cheapOnly = false
		if in.guard != nil {
			if ok, _ := in.guard.check(v, lowNodeUtilizationName, p, n); !ok {
				continue
			}
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
func (b bands) roomKey(pl *placement, p *cluster.Pod) (roomKey, bool) {
	k := roomKey{pl: pl, cpu: p.SpecRequests.MilliCPU, memory: p.SpecRequests.Memory}
	if len(b.resources) > len(k.metered) {
		return k, false
	}
	for i, r := range b.resources {
		k.metered[i] = b.m.pod(p, r)
	}
	return k, true
}

type roomKey struct {
	pl          *placement
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

func (r *noRoom) holds(in *Input, k roomKey) bool {
	return r.changes == in.Changes() && r.keys[k]
}

func (r *noRoom) add(in *Input, k roomKey) {
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
func (b bands) wouldExceed(n *cluster.Node, p *cluster.Pod) bool {
	if b.m == byScore {
		// How much a pod adds to the query's value is unknown until it is
		// measured: a node takes one pod a cycle.
		return n.Arrived() > 0
	}
	for _, r := range b.resources {
		if cluster.Percent(b.m.used(n, r)+b.m.pod(p, r), n.Allocatable.Get(r)) > b.high[r] {
			return true
		}
	}
	return false
}
