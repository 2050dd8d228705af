package scheduler

// maxNodeScore is the highest score a plugin gives a node after
// normalization.
const maxNodeScore = 100

// normalizeToMax scales scores so that the highest becomes 100, and with
// reverse turns them around so that the lowest gets 100: kube-scheduler's
// DefaultNormalizeScore. Integer arithmetic as there, so that scores match.
func normalizeToMax(scores []int64, reverse bool) {
	var highest int64
	for _, s := range scores {
		highest = max(highest, s)
	}
	if highest == 0 {
		if reverse {
			for k := range scores {
				scores[k] = maxNodeScore
			}
		}
		return
	}
	for k, s := range scores {
		s = maxNodeScore * s / highest
		if reverse {
			s = maxNodeScore - s
		}
		scores[k] = s
	}
}
