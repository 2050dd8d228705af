package topologyspread

import (
	"fmt"
	"slices"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// belowMinImprovement returns why balancing the constraint is not worth its
// moves, or "": the skew must drop by at least minImprovement once the
// strategy has moved the pods it would, one at a time from a fullest domain
// to a least-populated one, until the skew is within maxSkew. The gain is
// counted over those moves together, not one by one: with two domains at
// the top, the first move alone lowers the skew by nothing.
func belowMinImprovement(c *spreadConstraint, counts []int32, s skew, minImprovement int32) string {
	from := s.value(c, counts, -1)
	to := skewAfterBalancing(c, counts, from-minImprovement)
	if from-to >= minImprovement {
		return ""
	}
	return fmt.Sprintf("would lower the skew of topology spread on %s (maxSkew %d, %s) from %d to %d, by %d; minImprovement is %d",
		c.TopologyKey, c.MaxSkew, c.WhenUnsatisfiable, from, to, from-to, minImprovement)
}

// skewAfterBalancing returns the skew once pods have moved from the
// fullest domains to the least-populated receptive ones until it is within
// maxSkew, no move can lower it, or it is at most enough.
func skewAfterBalancing(c *spreadConstraint, counts []int32, enough int32) int32 {
	left := slices.Clone(counts)
	var total int32
	for _, n := range left {
		total += n
	}
	s := skewOf(c, left)
	v := s.value(c, left, -1)
	for range total {
		if v <= c.MaxSkew || v <= enough {
			break
		}
		from, to := int32(-1), int32(-1)
		for d, n := range left {
			if from < 0 || n > left[from] {
				from = int32(d)
			}
			if c.receptive[d] && (to < 0 || n < left[to]) {
				to = int32(d)
			}
		}
		// Below minDomains the strategy moves pods to empty domains only.
		if from < 0 || to < 0 || from == to || left[from]-left[to] < 2 || (s.belowDomains && left[to] > 0) {
			break
		}
		left[from]--
		left[to]++
		s = skewOf(c, left)
		v = s.value(c, left, -1)
	}
	return v
}

// holdBelowMinImprovement skips the group's pods in d, the fullest domain
// of constraint k, least important first: the report records as many as d
// had to shed. No domain of k is tried again this run; the others are
// not reported, as d's moves would have brought them within maxSkew too.
func holdBelowMinImprovement(in *framework.Cycle, g *spreadGroup, k int, d int32, counts []int32, s skew, tried map[*cluster.Pod]bool,
	stuck map[[2]int32]bool, wantOf func([2]int32) *framework.Need, why string) {
	c := &g.spec.constraints[k]
	for dd, n := range counts {
		if n-s.floor() > c.MaxSkew {
			stuck[[2]int32{int32(k), int32(dd)}] = true
		}
	}
	w := wantOf([2]int32{int32(k), d})
	var here []*cluster.Pod
	for _, p := range g.pods {
		node := in.Snapshot.NodeOf(p)
		if tried[p] || node == nil || node.Name != p.Spec.NodeName || c.domainOf(node.Index()) != d || in.Args(Name, p) == nil {
			continue
		}
		here = append(here, p)
	}
	slices.SortStableFunc(here, framework.LeaveOrder)
	for _, p := range here {
		tried[p] = true
		if !in.Evictable(Name, p) {
			w.Hold(p, framework.Outcome{}) // its own reason comes first
			continue
		}
		w.Hold(p, framework.Outcome{Category: framework.BelowMinImprovement, Reason: why})
	}
}
