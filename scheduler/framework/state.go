package framework

// stateSlot is one plugin's state in a pooled cycle: a *T made on first
// use and reset, not freed, when the cycle ends, so that a plugin's state
// costs no allocation per decision.
type stateSlot struct {
	ptr   any
	reset func()
}

// Resetter is implemented by a plugin state that keeps buffers from one
// cycle to the next: Reset drops what points into the snapshot and keeps
// the buffers. State that does not implement it is zeroed.
type Resetter interface {
	Reset()
}

// State returns the plugin's state of type T in cycle c: zero (or as its
// Reset left it) at the start of each decision, then whatever PreFilter,
// Filter and Score keep there during it. k is the plugin's
// Handle.StateKey(); a plugin uses a single T.
func State[T any](c *Cycle, k StateKey) *T {
	// Filter calls this once per node: the lookup stays small enough to be
	// inlined, and the first use in a pooled cycle goes to newState.
	if p, ok := c.states[k].ptr.(*T); ok {
		return p
	}
	return newState[T](c, k)
}

// newState makes a plugin's state in its slot of c.
func newState[T any](c *Cycle, k StateKey) *T {
	p := new(T)
	reset := func() { *p = *new(T) }
	if r, ok := any(p).(Resetter); ok {
		reset = r.Reset
	}
	c.states[k] = stateSlot{ptr: p, reset: reset}
	return p
}

// FamilyState returns the plugin's state of type T for the snapshot
// family of c's snapshot (see Family): made zero on first use, then kept,
// for every decision on that family, while the engine keeps the family.
// Decisions run concurrently: T keeps its answers in Memo and Lazy fields,
// or guards them itself. k is the plugin's Handle.StateKey(); a plugin
// uses a single T.
func FamilyState[T any](c *Cycle, k StateKey) *T {
	if p, ok := c.famStates[k].(*T); ok {
		return p
	}
	p := familyState[T](c.fam, k)
	c.famStates[k] = p
	return p
}

func familyState[T any](f *Family, k StateKey) *T {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p, ok := f.slots[k].(*T); ok {
		return p
	}
	p := new(T)
	f.slots[k] = p
	return p
}
