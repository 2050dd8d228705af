package lownodeutilization

import (
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
	"github.com/kube-rebalancer/rebalancer/strategies/nodeutilization"
)

// leaver is a pod of an over-utilized node with what its leaving would do
// for the node, worked out once rather than at every comparison.
type leaver struct {
	pod *cluster.Pod
	// relief adds up, over the resources above their target on the node,
	// the share of the node's allocatable the pod's leaving takes off the
	// excess: no more than the excess, so that a pod bigger than the node
	// needs counts as one that is just enough.
	relief float64
	// size adds up the same shares without that bound: of two pods that
	// relieve as much, the smaller takes less room on the targets.
	size float64
}

// leavers holds what ordering a node's pods needs, kept from one node to
// the next: balance orders the pods of every over-utilized node, in every
// round of the cycle, and would otherwise allocate for each.
type leavers struct {
	pods []*cluster.Pod
	ls   []leaver
}

// order sorts an over-utilized node's pods in the order they should leave:
// the cheapest first (cost, then priority), BestEffort before Burstable
// before Guaranteed, then the pods that bring the node closest to its
// targets, so that the fewest evictions reach the same balance whatever
// the pods are called; by key last. relieve sorts what is left again
// after each move: the excess it weighs them against has shrunk.
func (l *leavers) order(b nodeutilization.Bands, n *cluster.Node, pods []*cluster.Pod) {
	ls := slices.Grow(l.ls[:0], len(pods))[:len(pods)]
	l.ls = ls
	// The resources over target and their excess, counted in the
	// resource's units, so that pods that each just cover it tie
	// whatever rounding a percentage would bring. Few are listed: they
	// stay off the heap.
	type overResource struct {
		alloc, excess int64
		name          corev1.ResourceName
	}
	var buf [8]overResource
	over := buf[:0]
	if b.Meter != nodeutilization.ByScore { // a query rates the node, not its pods
		for _, r := range b.Resources {
			a := n.Allocatable.Get(r)
			if a > 0 && b.Meter.Util(n, r) > b.High[r] {
				over = append(over, overResource{a, max(0, b.Meter.Used(n, r)-int64(math.Floor(b.High[r]*float64(a)/100))), r})
			}
		}
	}
	for i, p := range pods {
		ls[i] = leaver{pod: p}
		for _, r := range over {
			v := b.Meter.Pod(p, r.name)
			ls[i].relief += float64(min(v, r.excess)) / float64(r.alloc)
			ls[i].size += float64(v) / float64(r.alloc)
		}
	}
	slices.SortStableFunc(ls, compareLeavers)
	for i := range ls {
		pods[i] = ls[i].pod
	}
	clear(ls) // the pods are not kept alive by the buffer
}

func compareLeavers(a, c leaver) int {
	if d := framework.Cheaper(a.pod, c.pod); d != 0 {
		return d
	}
	if qa, qc := framework.QoSRank(a.pod.QoS), framework.QoSRank(c.pod.QoS); qa != qc {
		return qa - qc
	}
	switch {
	case a.relief > c.relief:
		return -1
	case a.relief < c.relief:
		return 1
	case a.size < c.size:
		return -1
	case a.size > c.size:
		return 1
	}
	return strings.Compare(a.pod.Key, c.pod.Key)
}
