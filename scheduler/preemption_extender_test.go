package scheduler

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// refusingExtender turns down the nodes it names, as unresolvable or not.
type refusingExtender struct {
	refuse       map[string]string
	unresolvable bool
}

func (x refusingExtender) Name() string                  { return "http://extender.test" }
func (x refusingExtender) IsInterested(*corev1.Pod) bool { return true }
func (x refusingExtender) IsIgnorable() bool             { return false }
func (x refusingExtender) Weight() int64                 { return 1 }
func (x refusingExtender) NodeCacheCapable() bool        { return true }
func (x refusingExtender) Prioritize(*cluster.Pod, []*cluster.Node) (map[string]int64, error) {
	return nil, nil
}

func (x refusingExtender) Filter(_ *cluster.Pod, nodes []*cluster.Node) (ExtenderFilterResult, error) {
	res := ExtenderFilterResult{Failed: map[string]string{}, FailedAndUnresolvable: map[string]string{}}
	for _, n := range nodes {
		why, refused := x.refuse[n.Name]
		switch {
		case !refused:
			res.Nodes = append(res.Nodes, n.Name)
		case x.unresolvable:
			res.FailedAndUnresolvable[n.Name] = why
		default:
			res.Failed[n.Name] = why
		}
	}
	return res, nil
}

// A node the plugins pass but an extender turns down is no place for the
// pod: kube-scheduler's PostFilter runs, and preempts elsewhere. Node "b"
// has room, so removing pods there cannot help whether the extender calls
// it resolvable or not; the preemption happens on the full node "a".
func TestPreemptAroundANodeAnExtenderTurnedDown(t *testing.T) {
	for _, unresolvable := range []bool{false, true} {
		s := ct.Snapshot(t, ct.Node("a"), ct.Node("b"),
			running("low", "a", 1, "4", time.Hour),
			preemptor(100, "2"))
		e := defaultEngine(t)
		e.SetExtenders([]Extender{refusingExtender{refuse: map[string]string{"b": "reserved for batch"}, unresolvable: unresolvable}})
		pod := incoming(t, s)
		res := e.Schedule(s, pod, Options{})
		if res.Node != "" {
			t.Fatalf("unresolvable=%v: the pod fits on %s; the extender should have turned b down", unresolvable, res.Node)
		}
		got := e.Preempt(s, pod, res)
		if got.Node != "a" || !slices.Equal(keys(got.Victims), []string{"default/low"}) {
			t.Errorf("unresolvable=%v: Preempt chose %q with victims %v (%+v); want a with [default/low]", unresolvable, got.Node, keys(got.Victims), got)
		}
	}
}
