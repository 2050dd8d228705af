package highnodeutilization

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
	"github.com/kube-rebalancer/rebalancer/strategies/nodeutilization"
)

// highNodeUtilization empties the least used nodes onto the others, so that
// a cluster autoscaler can remove them. A node is a candidate when every
// listed resource is below its threshold; candidates are taken from the
// least used, and one is emptied only when every pod on it that would have
// to leave can leave and has a target: a half-emptied node saves nothing.
// Unlike the descheduler's, it also acts when every node is under the
// thresholds, packing the least used onto the most used. Targets are the
// other nodes of the same pool that are not being emptied, the most used
// first (as kube-scheduler's MostAllocated would choose), and never past
// what they can hold.
type highNodeUtilization struct{}

// Name is the strategy's key under strategies: in a policy.
const Name = "HighNodeUtilization"

func (highNodeUtilization) Name() string { return Name }

// GuardRule: no target among the nodes it empties, unless it moves
// the pod itself.
func (highNodeUtilization) GuardRule(in *framework.Cycle) framework.GuardRule {
	return newHighUtilizationRule(in)
}

// streaks holds the cycle's counts of consecutive observations.
var streaks = framework.NewSlot[nodeutilization.Streaks]()

// Observe counts, with metricsUtilization.consecutiveObservations above 1,
// each node under-utilized in the cluster as read; one not ready,
// unmeasured or not under its thresholds has no count.
func (s highNodeUtilization) Observe(in *framework.Cycle) {
	args, _ := in.Policy.Global().Strategies.Get(Name).(*Args)
	if args == nil {
		return
	}
	st := streaks.Of(in)
	if *st = nodeutilization.NewStreaks(in.Snapshot, args.MetricsUtilization.Observations()); !st.Counting() {
		return
	}
	for _, g := range highUtilizationGroups(args, in.Nodes()) {
		b := g.bands
		for _, n := range g.Nodes(in.Snapshot) {
			if n.Ready() && b.Meter.Unmeasured(in.Snapshot, n) == "" && b.IsBelow(n) {
				st.Observe(in, Name, b.Meter, n, cluster.ObservedUnder)
			}
		}
	}
}

func (s highNodeUtilization) Run(in *framework.Cycle) {
	args, _ := in.Policy.Global().Strategies.Get(Name).(*Args)
	if args == nil || !nodeutilization.MeterFor(args.MetricsUtilization).Measurable(in, Name) {
		return
	}
	emptied := make(map[string]bool)
	for _, g := range highUtilizationGroups(args, in.Nodes()) {
		for name := range s.compact(in, args, g, true) {
			emptied[name] = true
		}
	}
	if r := cycleCaches.Of(in).rule; r != nil {
		r.settle(emptied)
	}
}

// highUtilizationGroup is a group of nodes compacted on its own, with the
// thresholds under which its nodes are emptied.
type highUtilizationGroup struct {
	nodeutilization.NodeGroup
	bands nodeutilization.Bands
	// ceiling is the group's targetThresholds; nil when it has none.
	ceiling []nodeutilization.Limit
}

// highUtilizationGroups returns the node pools, then the nodes of no pool
// when the top-level thresholds are set.
func highUtilizationGroups(args *Args, nodes []*cluster.Node) []highUtilizationGroup {
	pools := args.Pools()
	var out []highUtilizationGroup
	for i, g := range nodeutilization.GroupByPool(pools, len(args.Thresholds) > 0, nodes) {
		t, ceiling := args.Thresholds, args.TargetThresholds
		if i < len(pools) {
			t, ceiling = args.NodePools[i].Thresholds, args.NodePools[i].TargetThresholds
		}
		out = append(out, highUtilizationGroup{NodeGroup: g, bands: nodeutilization.NewBands(nodeutilization.MeterFor(args.MetricsUtilization), t, t, false, nil),
			ceiling: nodeutilization.LimitsOf(ceiling)})
	}
	return out
}

// compact empties what it can of the group's under-utilized nodes and
// returns the nodes it emptied (those already empty included). With commit
// unset it only simulates: the guard uses that to keep other strategies'
// pods off the nodes that will be emptied. Placements are tried on a fork
// that follows the working snapshot, so that a node whose pods cannot all
// be placed is left as it was.
func (s highNodeUtilization) compact(in *framework.Cycle, args *Args, g highUtilizationGroup, commit bool) map[string]bool {
	emptied := make(map[string]bool)
	var under []*cluster.Node
	st := streaks.Of(in)
	for _, n := range g.Nodes(in.Snapshot) {
		class := nodeutilization.ClassTarget
		switch {
		case !n.Ready():
			class = nodeutilization.ClassNotReady
		case commit && g.bands.Meter.SkipUnmeasured(in, s.Name(), n), !commit && g.bands.Meter.Unmeasured(in.Snapshot, n) != "":
			class = nodeutilization.ClassUnmeasured
		// A cordoned node takes no pods but gives them: lightly used,
		// it is the first to empty.
		case !g.bands.IsBelow(n):
		// Below its thresholds, but not in enough observations yet: a
		// node like the others, which may take pods.
		case commit && !st.Confirmed(in, Name, n, cluster.ObservedUnder), !commit && !st.Has(n, cluster.ObservedUnder):
		default:
			under, class = append(under, n), nodeutilization.ClassUnder
		}
		if commit {
			nodeutilization.LogClassified(s.Name(), g.Pool, n, class, g.bands, false)
		}
	}
	klog.V(2).InfoS("HighNodeUtilization: classified nodes", "pool", g.Pool, "underUtilized", len(under), "thresholds", g.bands.LowString(), "commit", commit)
	if len(under) == 0 || int32(len(under)) <= args.NumberOfNodes {
		return emptied
	}
	// Cordoned nodes first: someone already chose them to go, and they
	// take no pods either way; then the least used.
	slices.SortStableFunc(under, func(a, b *cluster.Node) int {
		if a.Unschedulable() != b.Unschedulable() {
			if a.Unschedulable() {
				return -1
			}
			return 1
		}
		return nodeutilization.CompareLoad(g.bands, a, b, true)
	})

	// A simulation cannot see the limits the planner counts across nodes;
	// the total is the one that matters for its cost.
	budget := -1
	if t := in.Policy.Limits.Total; t != nil && !commit {
		budget = int(*t)
	}
	fork := in.Snapshot.Fork()
	targets := newTargetList(g.bands, nodeutilization.Measured(g.bands.Meter, fork, g.Nodes(fork)))
	for _, u := range under {
		n := fork.Node(u.Name)
		var pods []*cluster.Pod
		var blocker *cluster.Pod
		why := keptByAutoscaler(n)
		if why == "" {
			pods, blocker, why = s.leaving(in, args, g.bands, n)
		}
		if why == "" {
			if why = belowMinImprovement(g.bands, args, n); why != "" && commit {
				skipBelowMinImprovement(in, n.Name, pods, why)
			}
		}
		if why == "" && budget >= 0 && len(pods) > budget {
			why = "limits.total would be reached"
		}
		if why != "" {
			klog.V(3).InfoS("HighNodeUtilization: node cannot be emptied", "node", n.Name, "reason", why)
			if commit {
				if blocker != nil {
					// The pod that keeps the node, for the planner's
					// reason, as the pod that fits nowhere is.
					in.Mover.Skip(Name, blocker, framework.Outcome{})
				}
				in.Note(Name, n.Name, "not emptied: "+why)
			}
			continue
		}
		if len(pods) > 0 {
			chosen, stuck, ok := s.place(in, fork, targets, n, pods, emptied, g.ceiling != nil)
			if !ok {
				if commit {
					// The node's pods stay for the one that has nowhere to
					// go: the report says which and why.
					in.Mover.Skip(Name, stuck.pod, framework.Outcome{Category: stuck.category, Reason: stuck.why})
					in.Note(Name, n.Name, "not emptied: "+stuck.pod.Key+" "+stuck.why)
				}
				continue
			}
			if commit && !s.commit(in, g, n, pods, chosen) {
				// The planner refused what the simulation allowed: follow
				// the working snapshot again.
				fork = in.Snapshot.Fork()
				targets = newTargetList(g.bands, nodeutilization.Measured(g.bands.Meter, fork, g.Nodes(fork)))
				continue
			}
			if budget >= 0 {
				budget -= len(pods)
			}
		}
		emptied[n.Name] = true
	}
	return emptied
}

// keptByAutoscaler returns why the autoscaler keeps the node, or "".
func keptByAutoscaler(n *cluster.Node) string {
	switch {
	case n.Annotations[cluster.ScaleDownDisabledAnnotation] == "true":
		return "annotated " + cluster.ScaleDownDisabledAnnotation + `: "true": the cluster autoscaler keeps it, so emptying it frees nothing`
	case n.Annotations[cluster.DoNotDisruptAnnotation] == "true":
		return "annotated " + cluster.DoNotDisruptAnnotation + `: "true": Karpenter keeps it, so emptying it frees nothing`
	}
	return ""
}

// leaving returns the pods that must leave the node to empty it: all but
// DaemonSet pods and static pods, which stay with the node and do not keep
// an autoscaler from removing it, and pods already terminating. It returns
// why the node cannot be emptied when one of them cannot leave now, and
// that pod when the planner would not evict it.
func (highNodeUtilization) leaving(in *framework.Cycle, args *Args, b nodeutilization.Bands, n *cluster.Node) ([]*cluster.Pod, *cluster.Pod, string) {
	var pods []*cluster.Pod
	for _, p := range n.Pods() {
		if p.IsDaemonSetPod() || p.IsMirror() || p.IsTerminating() {
			continue
		}
		// With OnlyThresholdingResources, as in the descheduler, a pod
		// that requests none of the thresholds' resources stays.
		if args.OnlyThresholdingResources() && !requestsAnyDeclared(p, b.Resources) {
			continue
		}
		if in.Args(Name, p) == nil || !args.EvictableNamespaces.Allows(p.Namespace) {
			return nil, nil, p.Key + " is not one HighNodeUtilization may move"
		}
		if why := in.Mover.Evictable(Name, p); why != "" {
			return nil, p, p.Key + ": " + why
		}
		pods = append(pods, p)
	}
	if gc, ok := in.Mover.(framework.GroupChecker); ok && len(pods) > 1 {
		if why := gc.EvictableTogether(Name, pods); why != "" {
			return nil, nil, why
		}
	}
	// The biggest first: they are the hardest to fit. Their replacements
	// ask for their specs.
	slices.SortStableFunc(pods, func(a, b *cluster.Pod) int {
		if a.SpecRequests.MilliCPU != b.SpecRequests.MilliCPU {
			return int(b.SpecRequests.MilliCPU - a.SpecRequests.MilliCPU)
		}
		if a.SpecRequests.Memory != b.SpecRequests.Memory {
			if a.SpecRequests.Memory > b.SpecRequests.Memory {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Key, b.Key)
	})
	return pods, nil, ""
}

// stuckPod is the pod that keeps a node from being emptied, and why.
type stuckPod struct {
	pod      *cluster.Pod
	category framework.Category
	why      string
}

// place finds a target for every pod on the fork, the most used node that
// can take it first, and keeps the placements on the fork. When a pod
// finds none, the node's pods go back and place reports false and that
// pod.
func (highNodeUtilization) place(in *framework.Cycle, fork *cluster.Snapshot, targets *targetList, n *cluster.Node, pods []*cluster.Pod, emptied map[string]bool, ceiling bool) (map[*cluster.Pod]string, stuckPod, bool) {
	chosen := make(map[*cluster.Pod]string, len(pods))
	// undo puts the pods back one by one, so that the list, which update
	// keeps sorted when one node's load changes at a time, stays sorted.
	undo := func() {
		for _, p := range pods {
			if err := fork.Place(p, n.Name); err != nil {
				panic(err) // the pod and the node are the fork's
			}
			if t, ok := chosen[p]; ok {
				targets.update(fork, t)
			}
		}
		in.Edited(fork)
	}
	for _, p := range pods {
		fork.Remove(p)
		v := in.Edited(fork)
		target := ""
		if in.Policy.Replacements == policy.ReplacementsPredicted {
			var why string
			if target, why = predictedTarget(in, v, targets, n, p, emptied); target == "" {
				undo()
				return nil, stuckPod{p, framework.Futile, why}, false
			}
		}
		for _, name := range targets.names {
			if target != "" {
				break
			}
			if name == n.Name || emptied[name] {
				continue
			}
			t := fork.Node(name)
			// Most targets that cannot take the pod lack room: tell them
			// apart before asking the scheduler's filters.
			if nodeutilization.HasRoom(t, p) && in.CanTake(v, Name, p, t) {
				target = name
				break
			}
		}
		if target == "" {
			undo()
			why := "fits on no node HighNodeUtilization packs onto"
			if ceiling {
				why += " without going above its targetThresholds"
			}
			return nil, stuckPod{p, framework.NoFit, why}, false
		}
		if err := fork.Place(p, target); err != nil {
			panic(err)
		}
		in.Edited(fork)
		chosen[p] = target
		targets.update(fork, target)
	}
	return chosen, stuckPod{}, true
}

// predictedTarget returns the node the pod's scheduler would put its
// replacement on, when nothing steers replacements, if that node may take
// it: a target of the group, not n, not being emptied. Otherwise "" and
// why, the words following the pod's name: n cannot be emptied, as the
// planner would refuse the move as futile.
func predictedTarget(in *framework.Cycle, v framework.View, targets *targetList, n *cluster.Node, p *cluster.Pod, emptied map[string]bool) (string, string) {
	res := in.Placer.Schedule(v.Snapshot, p, engine.Options{})
	name := res.Node
	switch _, target := targets.at[name]; {
	case name == "":
		return "", "would find no node for its replacement: " + res.Message
	case name == n.Name:
		return "", "would have its replacement put back on " + name + " by its scheduler"
	case !target || emptied[name]:
		return "", "would have its replacement put on " + name + " by its scheduler, a node HighNodeUtilization does not pack onto"
	case res.RunnerUp == n.Name && res.RunnerUpScore == res.Score:
		return "", fmt.Sprintf("would have its replacement put on %s or back on %s by its scheduler, which scores them alike (%d)", name, n.Name, res.Score)
	case !in.CanTake(v, Name, p, v.Snapshot.Node(name)):
		return "", "would have its replacement put on " + name + " by its scheduler, where a strategy's condition keeps it off"
	}
	return name, ""
}

// targetList is the nodes of a group that can take pods (Ready, not
// cordoned), the most used first, kept in order as placements change their
// load.
type targetList struct {
	b     nodeutilization.Bands
	names []string
	load  []float64
	at    map[string]int
}

func newTargetList(b nodeutilization.Bands, nodes []*cluster.Node) *targetList {
	l := &targetList{b: b, at: make(map[string]int)}
	var usable []*cluster.Node
	for _, n := range nodes {
		if n.Ready() && !n.Unschedulable() {
			usable = append(usable, n)
		}
	}
	slices.SortStableFunc(usable, func(x, y *cluster.Node) int { return nodeutilization.CompareLoad(b, x, y, false) })
	for i, n := range usable {
		l.names = append(l.names, n.Name)
		l.load = append(l.load, b.MeanLoad(n))
		l.at[n.Name] = i
	}
	return l
}

// update reads the load of a node anew and moves it to its place.
func (l *targetList) update(snap *cluster.Snapshot, name string) {
	i, ok := l.at[name]
	if !ok {
		return
	}
	l.load[i] = l.b.MeanLoad(snap.Node(name))
	before := func(a, b int) bool {
		return l.load[a] > l.load[b] || (l.load[a] == l.load[b] && l.names[a] < l.names[b])
	}
	for i > 0 && before(i, i-1) {
		l.swap(i, i-1)
		i--
	}
	for i < len(l.names)-1 && before(i+1, i) {
		l.swap(i, i+1)
		i++
	}
}

func (l *targetList) swap(i, j int) {
	l.names[i], l.names[j] = l.names[j], l.names[i]
	l.load[i], l.load[j] = l.load[j], l.load[i]
	l.at[l.names[i]], l.at[l.names[j]] = i, j
}

// commit proposes the moves the simulation found. It reports false when
// the planner refused one, which leaves the node partly emptied.
func (s highNodeUtilization) commit(in *framework.Cycle, g highUtilizationGroup, n *cluster.Node, pods []*cluster.Pod, targets map[*cluster.Pod]string) bool {
	reason := fmt.Sprintf("%s is under-utilized%s (%s): emptying it onto more used nodes so that it can be removed",
		n.Name, g.In(), g.bands.DescribeUnder(in.Snapshot.Node(n.Name)))
	for _, p := range pods {
		target := targets[p]
		o := in.Move(s.Name(), framework.Candidate{Pod: p, Reason: reason, Accept: func(m *cluster.Node) (bool, string) {
			if m.Name != target {
				return false, "node(s) were not the node HighNodeUtilization packs the pod onto"
			}
			return true, ""
		}})
		if !o.Moved {
			klog.InfoS("HighNodeUtilization: the planner refused a move the simulation found; the node stays partly emptied", "node", n.Name, "pod", p.Key, "reason", o.Reason)
			return false
		}
	}
	return true
}

// highUtilizationRule keeps other strategies' pods off the nodes
// HighNodeUtilization empties: a pod moved onto such a node could not move
// again this cycle, so the node would be emptied on the next run instead.
// Which nodes is simulated once, before the first move of the cycle. Moves
// that run before HighNodeUtilization may still take the room the
// simulation counted on (violations are fixed first); once it has run, the
// nodes it did empty are the ones kept free, and the planner's next round
// lets the moves it had kept away from the others through.
type highUtilizationRule struct {
	in      *framework.Cycle
	done    bool
	emptied map[string]bool
	// The ceiling (targetThresholds) holds for every move, by node index:
	// a pod moved above it by any strategy would eat the headroom it
	// keeps. ceilings is nil when no group has one.
	meter    nodeutilization.Meter
	ceilings [][]nodeutilization.Limit
}

func newHighUtilizationRule(in *framework.Cycle) framework.GuardRule {
	if in.Policy.Global().Strategies.Get(Name) == nil {
		return nil
	}
	r := &highUtilizationRule{in: in}
	r.setCeilings()
	cycleCaches.Of(in).rule = r
	return r
}

func (r *highUtilizationRule) setCeilings() {
	args, _ := r.in.Policy.Global().Strategies.Get(Name).(*Args)
	if args == nil || !args.HasCeiling() {
		return
	}
	r.meter = nodeutilization.MeterFor(args.MetricsUtilization)
	for _, g := range highUtilizationGroups(args, r.in.Nodes()) {
		if g.ceiling == nil {
			continue
		}
		if r.ceilings == nil {
			r.ceilings = make([][]nodeutilization.Limit, len(r.in.Snapshot.Nodes()))
		}
		for _, name := range g.Names {
			r.ceilings[r.in.Snapshot.Node(name).Index()] = g.ceiling
		}
	}
}

// aboveCeiling reports whether moving p onto n takes n above its group's
// targetThresholds.
func (r *highUtilizationRule) aboveCeiling(p *cluster.Pod, n *cluster.Node) bool {
	return r.ceilings != nil && nodeutilization.Exceeds(r.meter, r.ceilings[n.Index()], n, p)
}

const ceilingRefusal = "node(s) would go above HighNodeUtilization's target utilization"

var (
	_ framework.Preparer  = (*highUtilizationRule)(nil)
	_ framework.GuardRule = (*highUtilizationRule)(nil)
)

func (r *highUtilizationRule) Prepare(_ *framework.Cycle, strategy string) {
	if strategy != Name && !r.done {
		r.simulate()
	}
}

func (r *highUtilizationRule) simulate() {
	r.done = true
	r.emptied = make(map[string]bool)
	args, _ := r.in.Policy.Global().Strategies.Get(Name).(*Args)
	var s highNodeUtilization
	for _, g := range highUtilizationGroups(args, r.in.Nodes()) {
		for name := range s.compact(r.in, args, g, false) {
			r.emptied[name] = true
		}
	}
}

// settle replaces the simulation by what HighNodeUtilization did; a
// different set of nodes is a change other strategies may act on.
func (r *highUtilizationRule) settle(emptied map[string]bool) {
	if !maps.Equal(r.emptied, emptied) {
		r.in.Changed()
	}
	r.done, r.emptied = true, emptied
}

func (r *highUtilizationRule) Check(_ framework.View, strategy string, p *cluster.Pod, n *cluster.Node) (bool, string) {
	if strategy == Name {
		if r.aboveCeiling(p, n) {
			return false, ceilingRefusal
		}
		return true, ""
	}
	if !r.done {
		r.simulate()
	}
	if r.emptied[n.Name] {
		return false, "node(s) are being emptied by HighNodeUtilization"
	}
	if r.aboveCeiling(p, n) {
		return false, ceilingRefusal
	}
	return true, ""
}

// requestsAnyDeclared reports whether a container or init container of the
// pod declares a request for one of the resources, as the descheduler's
// OnlyThresholdingResources asks: a declared request counts, even of zero.
func requestsAnyDeclared(p *cluster.Pod, resources []corev1.ResourceName) bool {
	for _, r := range resources {
		for _, c := range p.Spec.Containers {
			if _, ok := c.Resources.Requests[r]; ok {
				return true
			}
		}
		for _, c := range p.Spec.InitContainers {
			if _, ok := c.Resources.Requests[r]; ok {
				return true
			}
		}
	}
	return false
}
