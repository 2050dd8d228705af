package framework

import "sync/atomic"

// Slot is a strategy's place for state of its own in each cycle: the
// tables and answers it derives once and keeps until the cycle ends. A
// strategy declares its slot once, as a package variable, and reaches its
// state with Of:
//
//	var state = NewSlot[tables]()
//
//	func (s spread) Run(c *Cycle) {
//		t := state.Of(c) // *tables, zero at the cycle's start
//		...
//	}
type Slot[T any] struct {
	index int
}

var slots atomic.Int32

// NewSlot returns a new slot for state of type T.
func NewSlot[T any]() Slot[T] {
	return Slot[T]{index: int(slots.Add(1) - 1)}
}

// Of returns the slot's state in the cycle, a zero T the first time.
func (s Slot[T]) Of(c *Cycle) *T {
	if s.index < len(c.states) {
		if t, ok := c.states[s.index].(*T); ok {
			return t
		}
	}
	return s.create(c)
}

func (s Slot[T]) create(c *Cycle) *T {
	if s.index >= len(c.states) {
		c.states = append(c.states, make([]any, s.index+1-len(c.states))...)
	}
	t := new(T)
	c.states[s.index] = t
	return t
}
