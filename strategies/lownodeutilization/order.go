package lownodeutilization

import (
	"math"
	"slices"
	"strings"

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

// orderToLeave sorts an over-utilized node's pods in the order they should
// leave: the cheapest first (cost, then priority), BestEffort before
// Burstable before Guaranteed, then the pods that bring the node closest
// to its targets, so that the fewest evictions reach the same balance
// whatever the pods are called; by key last. relieve sorts what is left
// again after each move: the excess it weighs them against has shrunk.
func orderToLeave(b nodeutilization.Bands, n *cluster.Node, pods []*cluster.Pod) {
	ls := make([]leaver, len(pods))
	over := b.OverResources(n)
	// Few resources are listed: the excess stays off the heap. It is
	// counted in the resource's units, so that pods that each just
	// cover it tie whatever rounding a percentage would bring.
	var buf [8]int64
	excess := buf[:0]
	if len(over) > len(buf) {
		excess = make([]int64, 0, len(over))
	}
	excess = excess[:len(over)]
	for i, r := range over {
		if a := n.Allocatable.Get(r); a > 0 {
			excess[i] = max(0, b.Meter.Used(n, r)-int64(math.Floor(b.High[r]*float64(a)/100)))
		}
	}
	for i, p := range pods {
		ls[i].pod = p
		if b.Meter == nodeutilization.ByScore {
			continue // a query rates the node, not its pods
		}
		for k, r := range over {
			a := n.Allocatable.Get(r)
			if a <= 0 {
				continue
			}
			v := b.Meter.Pod(p, r)
			ls[i].relief += float64(min(v, excess[k])) / float64(a)
			ls[i].size += float64(v) / float64(a)
		}
	}
	slices.SortStableFunc(ls, compareLeavers)
	for i := range ls {
		pods[i] = ls[i].pod
	}
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
