package framework

// PlacementFree is implemented by a strategy whose candidates depend only
// on what no move changes: each pod's own spec and status, and the labels
// and taints of the node it runs on. A move changes where one pod runs, and
// that pod is not moved twice in a cycle; so when a run of such a strategy
// proposed no pod and skipped none, another run after any number of moves
// finds nothing either. The answer may depend on the policy (preferred node
// affinity looks for a better node with room, which moves change).
type PlacementFree interface {
	Strategy
	PlacementFree(c *Cycle) bool
}

// StaysIdle reports whether a run of the named strategy that proposed no
// pod and skipped none would do the same after any moves, so that the
// planner need not run it again in a later round of the cycle. A strategy
// that does not implement PlacementFree is never assumed to.
func (c *Cycle) StaysIdle(name string) bool {
	s, ok := Get(name).(PlacementFree)
	return ok && s.PlacementFree(c)
}
