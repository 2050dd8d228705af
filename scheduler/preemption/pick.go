package preemption

import (
	"math"
	"time"
)

// pickOneNodeForPreemption is kube-scheduler's choice among candidates,
// each criterion breaking the ties of the one before: the fewest PDB
// violations, the lowest highest-priority victim, the lowest sum of
// priorities, the fewest victims, the latest start among the
// highest-priority victims. kube-scheduler takes any node still tied (the
// first of a map); the engine takes the first in its candidate order, the
// ones without PDB violations first, each in the order they were tried.
func pickOneNodeForPreemption(cands []candidate, now time.Time) candidate {
	scores := []func(c *candidate) int64{
		func(c *candidate) int64 { return -int64(c.pdbViolations) },
		func(c *candidate) int64 { return -int64(c.victims[0].Priority) },
		func(c *candidate) int64 {
			var sum int64
			for _, p := range c.victims {
				// Shifted to be positive, so that many victims of negative
				// priority never sum below few of them.
				sum += int64(p.Priority) + math.MaxInt32 + 1
			}
			return -sum
		},
		func(c *candidate) int64 { return -int64(len(c.victims)) },
		func(c *candidate) int64 { return earliestStartOfHighest(c, now).UnixNano() },
	}
	left := cands
	for _, score := range scores {
		var kept []candidate
		best := int64(math.MinInt64)
		for k := range left {
			s := score(&left[k])
			if s > best {
				best, kept = s, kept[:0]
			}
			if s == best {
				kept = append(kept, left[k])
			}
		}
		if len(kept) == 1 {
			return kept[0]
		}
		left = kept
	}
	return left[0]
}

// earliestStartOfHighest is the earliest start time among the victims of
// the highest priority. The highest is searched for, not read from the
// first victim: an extender's preemptVerb may name victims in any order.
func earliestStartOfHighest(c *candidate, now time.Time) time.Time {
	top := c.victims[0].Priority
	earliest := startTime(c.victims[0], now)
	for _, p := range c.victims[1:] {
		switch t := startTime(p, now); {
		case p.Priority > top:
			top, earliest = p.Priority, t
		case p.Priority == top && t.Before(earliest):
			earliest = t
		}
	}
	return earliest
}
