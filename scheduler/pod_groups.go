package scheduler

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
)

// groups indexes the snapshot family's pods by namespace and labels: the
// snapshot's own index, which the strategies of a planner read too.
func (t *tables) groups(snap *cluster.Snapshot) *cluster.PodGroups {
	return once(t, &t.podGroups, snap.PodGroups)
}

// selectGroups returns the ids of the pod groups the query selects, in
// index order, remembered per query.
func (t *tables) selectGroups(snap *cluster.Snapshot, q cluster.PodQuery) []int32 {
	g := t.groups(snap)
	return memo(t, t.selections, q.Key(), func() []int32 { return g.Select(q, snap.NamespaceLabels) })
}
