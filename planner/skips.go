package planner

import (
	"cmp"
	"slices"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// skips are the pods that strategies needed to move and could not, as the
// latest run of each strategy left them: a later run sees the cycle as
// earlier moves changed it, and a pod it no longer needs (another pod of
// its group moved since) is no longer skipped.
type skips struct {
	// rank is each strategy's place in the policy's run order.
	rank       map[string]int
	byStrategy map[string][]Skip
	// at indexes byStrategy: strategy -> pod -> position, so that a
	// strategy that skips thousands of pods stays linear.
	at map[string]map[string]int
	// stale holds, while a strategy runs, what its previous run recorded.
	stale map[string][]Skip
	// counted holds, per strategy, the pods it did not propose that the
	// plan counts in a note rather than lists (framework.Counter), as the
	// latest run left them; staleCounted, its previous run's while it runs.
	counted, staleCounted map[string][]countedPod
}

// countedPod is a pod counted and not listed: they are many, and only the
// first one's reason is told (strategies share one reason string among
// them).
type countedPod struct {
	pod      *cluster.Pod
	category Category
	reason   string
}

func newSkips(order []string) *skips {
	s := &skips{rank: make(map[string]int, len(order)), byStrategy: make(map[string][]Skip),
		at: make(map[string]map[string]int), stale: make(map[string][]Skip),
		counted: make(map[string][]countedPod), staleCounted: make(map[string][]countedPod)}
	for i, name := range order {
		s.rank[name] = i
	}
	return s
}

// begin starts a run of the strategy: what it records replaces what its
// previous run did.
func (s *skips) begin(strategy string) {
	s.stale[strategy] = s.byStrategy[strategy]
	s.byStrategy[strategy] = nil
	s.at[strategy] = make(map[string]int)
	s.staleCounted[strategy] = s.counted[strategy]
	s.counted[strategy] = nil
}

// end ends a run. A run cut short (the cycle can evict nothing more) did
// not look at every group again, so what the previous run found stands
// beside what this one did.
func (s *skips) end(strategy string, cutShort bool) {
	if cutShort {
		// The earlier pods first, as they were recorded; a pod both runs
		// skipped keeps the later reason.
		current, at := s.byStrategy[strategy], s.at[strategy]
		s.byStrategy[strategy], s.at[strategy] = nil, make(map[string]int)
		for _, k := range s.stale[strategy] {
			if i, ok := at[k.Pod]; ok {
				k = current[i]
			}
			s.put(strategy, k)
		}
		for _, k := range current {
			s.put(strategy, k)
		}
		s.counted[strategy] = append(s.staleCounted[strategy], s.counted[strategy]...)
	}
	delete(s.stale, strategy)
	delete(s.staleCounted, strategy)
}

// count records a pod the plan counts rather than lists.
func (s *skips) count(strategy string, p *cluster.Pod, cat Category, why string) {
	s.counted[strategy] = append(s.counted[strategy], countedPod{p, cat, why})
}

// put records a pod once per strategy: the first reason stands.
func (s *skips) put(strategy string, k Skip) {
	at := s.at[strategy]
	if at == nil {
		at = make(map[string]int)
		s.at[strategy] = at
	}
	if _, ok := at[k.Pod]; ok {
		return
	}
	at[k.Pod] = len(s.byStrategy[strategy])
	s.byStrategy[strategy] = append(s.byStrategy[strategy], k)
}

// list returns the skipped pods, each once, leaving out those that moved:
// a pod one strategy could not move and a later one did is not left in
// place. Of two strategies that skipped the same pod, a reason that keeps
// the pod from being evicted at all (protected, pdb, limit, cooldown, ...)
// wins over no-fit, futile and below-min-improvement, which only say that
// no node suited that strategy's move, or that it was not worth it to that
// strategy: it is what a user must change for any strategy to move
// the pod.
// Between reasons of the same kind, the strategy that runs first wins, as
// its move would have been planned first. The list goes strategy by
// strategy in run order, each in the order it recorded its pods.
func (s *skips) list(moved map[string]bool) []Skip {
	strategies := make([]string, 0, len(s.byStrategy))
	for name := range s.byStrategy {
		strategies = append(strategies, name)
	}
	rank := func(name string) int {
		if r, ok := s.rank[name]; ok {
			return r
		}
		return len(s.rank)
	}
	slices.SortFunc(strategies, func(a, b string) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a, b))
	})
	// Futile, like no-fit, is about where one strategy's move would lead;
	// below-min-improvement about what that strategy would gain by it.
	placement := func(c Category) bool { return c == NoFit || c == Futile || c == BelowMinImprovement }
	better := func(a, b Skip) bool {
		if placement(a.Category) != placement(b.Category) {
			return placement(b.Category)
		}
		return rank(a.Strategy) < rank(b.Strategy)
	}
	winner := make(map[string]Skip)
	for _, name := range strategies {
		for _, k := range s.byStrategy[name] {
			if moved[k.Pod] {
				continue
			}
			if w, ok := winner[k.Pod]; !ok || better(k, w) {
				winner[k.Pod] = k
			}
		}
	}
	out := []Skip{}
	for _, name := range strategies {
		for _, k := range s.byStrategy[name] {
			if w, ok := winner[k.Pod]; ok && w.Strategy == name {
				out = append(out, k)
			}
		}
	}
	return out
}

// skipped returns the cycle's skipped pods, leaving out those it moved.
func (c *cycle) skipped() []Skip {
	moved := make(map[string]bool, len(c.plan.Moves))
	for _, m := range c.plan.Moves {
		moved[m.Pod] = true
	}
	return c.skips.list(moved)
}
