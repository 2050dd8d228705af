package scheduler

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
)

// groups indexes the snapshot family's pods by namespace and labels, once.
func (t *tables) groups() *cluster.PodGroups {
	return once(t, &t.podGroups, func() *cluster.PodGroups { return cluster.NewPodGroups(t.pods) })
}

// selectGroups returns the ids of the pod groups the query selects, in
// index order, remembered per query.
func (t *tables) selectGroups(snap *cluster.Snapshot, q cluster.PodQuery) []int32 {
	g := t.groups()
	return memo(t, t.selections, q.Key(), func() []int32 { return g.Select(q, snap.NamespaceLabels) })
}
