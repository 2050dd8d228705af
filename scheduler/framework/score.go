package framework

// MaxNodeScore is the highest score a plugin gives a node after
// normalization.
const MaxNodeScore = 100

// DefaultNormalizeScore scales scores so that the highest becomes
// MaxNodeScore, and with reverse turns them around so that the lowest gets
// it: kube-scheduler's DefaultNormalizeScore. Integer arithmetic as there,
// so that scores match.
func DefaultNormalizeScore(scores []int64, reverse bool) {
	var highest int64
	for _, s := range scores {
		highest = max(highest, s)
	}
	if highest == 0 {
		if reverse {
			for k := range scores {
				scores[k] = MaxNodeScore
			}
		}
		return
	}
	for k, s := range scores {
		s = MaxNodeScore * s / highest
		if reverse {
			s = MaxNodeScore - s
		}
		scores[k] = s
	}
}

// Zeroed returns (*buf)[:n] cleared, growing *buf when needed: a plugin's
// per-node buffers kept in its state from one decision to the next.
func Zeroed[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	s := (*buf)[:n]
	clear(s)
	return s
}
