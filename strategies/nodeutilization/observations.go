package nodeutilization

import (
	"fmt"
	"time"

	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// SampleAt returns when the node's sample was taken: the one whose
// observation is counted once however many runs read it.
func (m Meter) SampleAt(n *cluster.Node) time.Time {
	switch {
	case m == ByScore && n.Score != nil:
		return n.Score.Timestamp.Time
	case m == ByUsage && n.Usage != nil:
		return n.Usage.Timestamp
	}
	return time.Time{}
}

// Streaks are a strategy's counts of consecutive observations in a cycle,
// by node index (metricsUtilization.consecutiveObservations). The zero
// value asks for one observation: every node is taken as it is classified.
type Streaks struct {
	need  int32
	class []string
	count []int32
}

// NewStreaks returns the streaks of a strategy that needs need consecutive
// observations, none counted yet: a node no observation counts for is
// classified in none.
func NewStreaks(s *cluster.Snapshot, need int32) Streaks {
	if need <= 1 {
		return Streaks{}
	}
	return Streaks{need: need, class: make([]string, len(s.Nodes())), count: make([]int32, len(s.Nodes()))}
}

// Counting reports whether the streaks count at all (more than one
// observation needed).
func (st *Streaks) Counting() bool { return st.need > 1 }

// Observe counts the node found in class (cluster.ObservedOver or
// cluster.ObservedUnder) in the cycle's observation.
func (st *Streaks) Observe(in *framework.Cycle, strategy string, m Meter, n *cluster.Node, class string) {
	if !st.Counting() {
		return
	}
	i := n.Index()
	st.class[i], st.count[i] = class, in.Observe(strategy, n, class, m.SampleAt(n))
}

// Has reports whether the node was in class in enough consecutive
// observations to be treated so.
func (st *Streaks) Has(n *cluster.Node, class string) bool {
	return !st.Counting() || st.got(n, class) >= st.need
}

func (st *Streaks) got(n *cluster.Node, class string) int32 {
	if i := n.Index(); i < len(st.class) && st.class[i] == class {
		return st.count[i]
	}
	return 0
}

// Confirmed is Has, with a note saying how far a node that is not yet
// treated as in class got.
func (st *Streaks) Confirmed(in *framework.Cycle, strategy string, n *cluster.Node, class string) bool {
	if st.Has(n, class) {
		return true
	}
	got := st.got(n, class)
	msg := fmt.Sprintf("%s-utilized in %d of %d consecutive observations: not treated as %s-utilized yet", class, got, st.need, class)
	klog.V(2).InfoS(strategy+": node not treated as classified yet", "node", n.Name, "class", class, "observations", got, "needed", st.need)
	in.Note(strategy, n.Name, msg)
	return false
}
