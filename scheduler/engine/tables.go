package engine

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// familiesKept bounds how many snapshot families (Family) an
// engine keeps tables for: a planner works on one snapshot and its forks
// at a time, and a live scheduler replaces its snapshot every cycle.
const familiesKept = 2

// family is what the engine and its plugins derive from one snapshot
// family: the plugins' part in Family, the engine's static
// indexes beside it.
type family struct {
	plugins *framework.Family
	// staticIndexes is what each combination of static checks says of
	// every node (see staticIndex).
	staticIndexes framework.Memo[string, *staticIndex]
}

func (e *Engine) newFamily(s *cluster.Snapshot) *family {
	f := &family{plugins: framework.NewFamily(s, len(e.plugins))}
	f.staticIndexes.Limit = maxStaticIndexes
	return f
}

// familyOf returns the tables of the snapshot's family, creating them on
// first use.
func (e *Engine) familyOf(s *cluster.Snapshot) *family {
	if e.NoCache {
		return e.newFamily(s)
	}
	g := s.Generation()
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, f := range e.families {
		if f.plugins.Generation() == g {
			// Most recently used first.
			copy(e.families[1:i+1], e.families[:i])
			e.families[0] = f
			return f
		}
	}
	f := e.newFamily(s)
	if len(e.families) < familiesKept {
		e.families = append(e.families, nil)
	}
	copy(e.families[1:], e.families[:len(e.families)-1])
	e.families[0] = f
	return f
}
