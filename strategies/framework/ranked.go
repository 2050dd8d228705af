package framework

import (
	"cmp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// Ranked is a candidate with the figure that orders it among the
// candidates of its strategy: a pod's age, its number of restarts.
type Ranked struct {
	Candidate
	Rank int64
}

// OfferInOrder proposes the candidates cheapest first (Cheaper), then
// highest rank first, so that limits spend the cycle's evictions where they
// cost least and help most. Equal ranks go by pod key, so that the plan does
// not depend on the order of the snapshot.
func (c *Cycle) OfferInOrder(strategy string, found []Ranked) {
	slices.SortStableFunc(found, func(a, b Ranked) int {
		if d := Cheaper(a.Pod, b.Pod); d != 0 {
			return d
		}
		if d := cmp.Compare(b.Rank, a.Rank); d != 0 {
			return d
		}
		return strings.Compare(a.Pod.Key, b.Pod.Key)
	})
	for _, r := range found {
		c.Move(strategy, r.Candidate)
	}
}

// EachBoundPod calls fn for every pod, of any phase, bound to a node that
// the policy selects. Finished pods are among them: they hold no resources,
// so a node's Pods leaves them out, but deleting them is what some
// strategies are for.
func (c *Cycle) EachBoundPod(fn func(p *cluster.Pod)) {
	selected := make(map[string]bool, len(c.Selected()))
	for _, n := range c.Selected() {
		selected[n.Name] = true
	}
	for _, p := range c.Snapshot.Pods() {
		if selected[p.Spec.NodeName] {
			fn(p)
		}
	}
}

// OwnedByKind reports whether one of the pod's owners is of one of the
// kinds.
func OwnedByKind(p *cluster.Pod, kinds []string) bool {
	for _, o := range p.OwnerReferences {
		if slices.Contains(kinds, o.Kind) {
			return true
		}
	}
	return false
}

// LeaveOrder orders the pods of a group as they should leave: the cheapest
// (Cheaper: cost, then priority) first, then the youngest, then by key.
func LeaveOrder(a, b *cluster.Pod) int {
	if c := Cheaper(a, b); c != 0 {
		return c
	}
	if c := b.CreationTimestamp.Compare(a.CreationTimestamp.Time); c != 0 {
		return c
	}
	return strings.Compare(a.Key, b.Key)
}

// QoSRank orders QoS classes as pods leave a node: BestEffort first,
// then Burstable, then Guaranteed.
func QoSRank(q corev1.PodQOSClass) int {
	switch q {
	case corev1.PodQOSBestEffort:
		return 0
	case corev1.PodQOSBurstable:
		return 1
	}
	return 2
}
