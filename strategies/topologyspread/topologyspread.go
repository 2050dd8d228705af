package topologyspread

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// topologySpread moves the fewest pods that bring every balanced topology
// spread constraint of a workload back within its maxSkew: skew grows when
// a zone or node comes back empty after an outage, or a rollout lands
// unevenly. It takes a pod from the fullest domain of the most skewed
// constraint, preferring pods whose domains of the other constraints are
// full too (so that moving it helps or keeps them), and sends the
// replacement to a least-populated domain only. Every move is also held to
// the guard's spread rule, so that no constraint of the pod ends up past
// its maxSkew; the next run therefore finds nothing to do.
type topologySpread struct{}

// Name is the strategy's key under strategies: in a policy.
const Name = "RemovePodsViolatingTopologySpreadConstraint"

func (topologySpread) Name() string { return Name }

// GuardRule: no target that takes any balanced constraint of the
// pod (ScheduleAnyway ones included when the strategy balances them) past
// its maxSkew, or further past it.
func (topologySpread) GuardRule(in *framework.Cycle) framework.GuardRule { return &spreadRule{in: in} }

// spreadGroup is the pods that share a spread spec, in snapshot order.
type spreadGroup struct {
	spec *spreadSpec
	pods []*cluster.Pod
	// minImprovement is the strategy's argument for the group's pods.
	minImprovement int32
}

func (s topologySpread) Run(in *framework.Cycle) {
	var groups []*spreadGroup
	byKey := make(map[string]*spreadGroup)
	for _, p := range in.Snapshot.Pods() {
		if len(p.Spec.TopologySpreadConstraints) == 0 || p.IsTerminating() || in.Snapshot.NodeOf(p) == nil {
			continue
		}
		if !in.Policy.AllowsNamespace(p.Namespace) {
			continue
		}
		a, ok := in.Settings(p.Namespace).Args(s.Name()).(*Args)
		if !ok {
			continue
		}
		spec := podSpreadSpec(in, p, a)
		if spec == nil {
			continue
		}
		g := byKey[spec.key]
		if g == nil {
			g = &spreadGroup{spec: spec, minImprovement: a.MinImprovement}
			byKey[spec.key] = g
			groups = append(groups, g)
		}
		g.pods = append(g.pods, p)
	}
	for _, g := range groups {
		s.balance(in, g)
	}
}

// balance moves pods of the group until every constraint is within its
// maxSkew or nothing more can move.
func (s topologySpread) balance(in *framework.Cycle, g *spreadGroup) {
	spec := g.spec
	tried := make(map[*cluster.Pod]bool)
	stuck := make(map[[2]int32]bool)
	// wants holds, per constraint and domain, the pods the domain needs to
	// shed, in the order the domains came up.
	wants := make(map[[2]int32]*framework.Need)
	var order [][2]int32
	// judged marks the constraints whose gain was weighed this run.
	var judged []bool
	wantOf := func(key [2]int32) *framework.Need {
		if w, ok := wants[key]; ok {
			return w
		}
		w := in.Need(s.Name(), 0)
		wants[key] = w
		order = append(order, key)
		return w
	}
	for {
		counts := spreadCounts(in, in.Now(), spec, nil)
		skews := make([]skew, len(spec.constraints))
		for k := range spec.constraints {
			skews[k] = skewOf(&spec.constraints[k], counts[k])
		}
		k, d := s.worst(spec, counts, skews, stuck)
		if k < 0 {
			s.report(in, g, counts, skews, tried, wants, order)
			return
		}
		if g.minImprovement > 0 {
			if judged == nil {
				judged = make([]bool, len(spec.constraints))
			}
			if !judged[k] {
				judged[k] = true
				if why := belowMinImprovement(&spec.constraints[k], counts[k], skews[k], g.minImprovement); why != "" {
					holdBelowMinImprovement(in, g, k, d, counts[k], skews[k], tried, stuck, wantOf, why)
					continue
				}
			}
		}
		key := [2]int32{int32(k), d}
		p := s.choose(in, g, k, d, counts, skews, tried)
		if p == nil {
			stuck[key] = true
			wantOf(key)
			continue
		}
		tried[p] = true
		c := &spec.constraints[k]
		floor := skews[k].floor()
		o := wantOf(key).Move(framework.Candidate{
			Pod:    p,
			Reason: describeSkew(c, counts[k], skews[k], d),
			Accept: func(n *cluster.Node) (bool, string) {
				t := c.domainOf(n.Index())
				if t < 0 || !c.receptive[t] || counts[k][t] > floor {
					return false, "node(s) were not in a least-populated domain of " + c.TopologyKey
				}
				return true, ""
			},
		})
		if !o.Moved {
			// The group's pods share their spec: where one finds no room,
			// the next would not either.
			stuck[key] = true
		}
	}
}

// report records, for each domain the strategy gave up on, the pods it
// still holds past maxSkew: the refused pod first, then the group's other
// pods of the domain, least important first. Those the planner would not
// evict are skipped for their own reason; those left untried after a
// refusal, for the refusal's reason, which their shared spec makes theirs.
func (topologySpread) report(in *framework.Cycle, g *spreadGroup, counts [][]int32, skews []skew, tried map[*cluster.Pod]bool,
	wants map[[2]int32]*framework.Need, order [][2]int32) {
	for _, key := range order {
		k, d := int(key[0]), key[1]
		c := &g.spec.constraints[k]
		w := wants[key]
		excess := shed(c, counts[k], skews[k], d)
		if !skews[k].ok || excess <= 0 {
			continue
		}
		w.Pods = w.Moved + excess
		var like *framework.Refusal
		if len(w.Refused) > 0 {
			like = &w.Refused[0]
		}
		var rest []*cluster.Pod
		for _, p := range g.pods {
			n := in.Snapshot.NodeOf(p)
			// A pod placed away from its own node is the replacement of
			// one already moved this cycle: it cannot move again.
			if tried[p] || n == nil || n.Name != p.Spec.NodeName || c.domainOf(n.Index()) != d || in.Args(Name, p) == nil {
				continue
			}
			rest = append(rest, p)
		}
		slices.SortStableFunc(rest, framework.LeaveOrder)
		for _, p := range rest {
			switch {
			case !in.Evictable(Name, p):
				w.Hold(p, framework.Outcome{})
			case like != nil:
				w.Hold(p, framework.Outcome{Category: like.Outcome.Category,
					Reason: "not proposed: " + like.Pod.Key + ", with the same spread constraints, was refused: " + like.Outcome.Reason})
			}
		}
		w.Done()
	}
}

// shed counts the pods domain d must still lose for the constraint to be
// within its maxSkew, each going to a least-populated receptive domain and
// so raising the floor as it lands, as the strategy would have moved them.
func shed(c *spreadConstraint, counts []int32, s skew, d int32) int {
	if s.belowDomains {
		return max(0, int(counts[d]-c.MaxSkew))
	}
	left := slices.Clone(counts)
	n := 0
	for {
		low := int32(-1)
		for dd, v := range left {
			if c.receptive[dd] && int32(dd) != d && (low < 0 || v < left[low]) {
				low = int32(dd)
			}
		}
		floor := left[d]
		if low >= 0 {
			floor = min(floor, left[low])
		}
		if low < 0 || left[d]-floor <= c.MaxSkew {
			return n
		}
		left[d]--
		left[low]++
		n++
	}
}

// worst returns the constraint furthest past its maxSkew and its fullest
// domain that still has pods to move, or -1.
func (topologySpread) worst(spec *spreadSpec, counts [][]int32, skews []skew, stuck map[[2]int32]bool) (int, int32) {
	bestK, bestD := -1, int32(-1)
	var bestExcess int32
	for k := range spec.constraints {
		c := &spec.constraints[k]
		sk := skews[k]
		if !sk.ok {
			continue
		}
		excess := sk.value(c, counts[k], -1) - c.MaxSkew
		if excess <= 0 || (bestK >= 0 && excess <= bestExcess) {
			continue
		}
		// Below minDomains the floor is 0: only an empty domain could take
		// a pod, and without one no move helps.
		if sk.belowDomains && !hasEmptyReceptive(c, counts[k]) {
			continue
		}
		d := int32(-1)
		for dd, n := range counts[k] {
			if n-sk.floor() <= c.MaxSkew || stuck[[2]int32{int32(k), int32(dd)}] {
				continue
			}
			if d < 0 || n > counts[k][d] || (n == counts[k][d] && c.Domains.Values[dd] < c.Domains.Values[d]) {
				d = int32(dd)
			}
		}
		if d >= 0 {
			bestK, bestD, bestExcess = k, d, excess
		}
	}
	return bestK, bestD
}

// choose picks the pod to move out of domain d of constraint k: one the
// strategy applies to and that can be evicted now, not tried yet; first the
// cheapest (framework.ByCost), then the one whose domains of the other
// constraints are fullest, then the lowest priority, the youngest, the
// first by name.
func (topologySpread) choose(in *framework.Cycle, g *spreadGroup, k int, d int32, counts [][]int32, skews []skew, tried map[*cluster.Pod]bool) *cluster.Pod {
	spec := g.spec
	type option struct {
		pod  *cluster.Pod
		load int32
	}
	var options []option
	for _, p := range g.pods {
		if tried[p] {
			continue
		}
		n := in.Snapshot.NodeOf(p)
		if n == nil || spec.constraints[k].domainOf(n.Index()) != d {
			continue
		}
		if in.Args(Name, p) == nil || !in.Evictable(Name, p) {
			continue
		}
		var load int32
		for j := range spec.constraints {
			if j == k || !skews[j].ok {
				continue
			}
			if dj := spec.constraints[j].domainOf(n.Index()); dj >= 0 {
				load += counts[j][dj] - skews[j].floor()
			}
		}
		options = append(options, option{p, load})
	}
	if len(options) == 0 {
		return nil
	}
	slices.SortStableFunc(options, func(a, b option) int {
		if c := framework.ByCost(a.pod, b.pod); c != 0 {
			return c
		}
		switch {
		case a.load != b.load:
			return int(b.load - a.load)
		case a.pod.Priority != b.pod.Priority:
			if a.pod.Priority < b.pod.Priority {
				return -1
			}
			return 1
		}
		if c := b.pod.CreationTimestamp.Compare(a.pod.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.pod.Key, b.pod.Key)
	})
	return options[0].pod
}

// describeSkew names the constraint, its fullest and emptiest domains and
// the skew, e.g. "topology spread on topology.kubernetes.io/zone (maxSkew
// 1, DoNotSchedule): zone-a has 4 matching pods, zone-c 1: skew 3".
func describeSkew(c *spreadConstraint, counts []int32, s skew, d int32) string {
	low := "fewer than minDomains domains"
	if !s.belowDomains {
		for dd, n := range counts {
			if c.receptive[dd] && n == s.min {
				low = fmt.Sprintf("%s %d", c.Domains.Values[dd], n)
				break
			}
		}
	}
	return fmt.Sprintf("topology spread on %s (maxSkew %d, %s): %s has %d matching pods, %s: skew %d",
		c.TopologyKey, c.MaxSkew, c.WhenUnsatisfiable, c.Domains.Values[d], counts[d], low, s.value(c, counts, -1))
}

func hasEmptyReceptive(c *spreadConstraint, counts []int32) bool {
	for d, n := range counts {
		if n == 0 && c.receptive[d] {
			return true
		}
	}
	return false
}
