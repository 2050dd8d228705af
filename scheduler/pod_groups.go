package scheduler

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// podGroup is the pods of one namespace that carry exactly the same labels.
// The replicas of a workload share their labels, so a 150,000-pod cluster
// has a few thousand groups, and a label selector is matched once per group
// instead of once per pod.
type podGroup struct {
	namespace string
	labels    labels.Set
	pods      []*cluster.Pod
}

// podGroups indexes every pod of a snapshot family by namespace and labels.
// It holds pods whatever their placement; callers ask the snapshot where
// each pod is now.
type podGroups struct {
	groups      []podGroup
	byNamespace map[string][]int32
	// namespaces holds every namespace that has a pod, sorted.
	namespaces []string
	byKey      map[string]int32
}

// labelKey is a canonical string for a namespace and a label set.
func labelKey(namespace string, l map[string]string) string {
	keys := make([]string, 0, len(l))
	n := len(namespace) + 1
	for k, v := range l {
		keys = append(keys, k)
		n += len(k) + len(v) + 2
	}
	slices.Sort(keys)
	var b strings.Builder
	b.Grow(n)
	b.WriteString(namespace)
	b.WriteByte(0)
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(l[k])
		b.WriteByte(0)
	}
	return b.String()
}

func buildPodGroups(pods []*cluster.Pod) *podGroups {
	g := &podGroups{byNamespace: make(map[string][]int32), byKey: make(map[string]int32)}
	for _, p := range pods {
		key := labelKey(p.Namespace, p.Labels)
		id, ok := g.byKey[key]
		if !ok {
			id = int32(len(g.groups))
			g.byKey[key] = id
			g.groups = append(g.groups, podGroup{namespace: p.Namespace, labels: labels.Set(p.Labels)})
			if _, seen := g.byNamespace[p.Namespace]; !seen {
				g.namespaces = append(g.namespaces, p.Namespace)
			}
			g.byNamespace[p.Namespace] = append(g.byNamespace[p.Namespace], id)
		}
		g.groups[id].pods = append(g.groups[id].pods, p)
	}
	slices.Sort(g.namespaces)
	return g
}

func (t *tables) groups() *podGroups {
	return once(t, &t.podGroups, func() *podGroups { return buildPodGroups(t.pods) })
}

// podQuery selects pods by namespace and labels, as an affinity term or a
// spread constraint does: a pod matches when its namespace is listed or its
// namespace's labels match nsSelector, and its labels match selector.
type podQuery struct {
	namespaces []string
	nsSelector labels.Selector // nil selects no namespace by labels
	selector   labels.Selector
}

func (q podQuery) key() string {
	var b strings.Builder
	for _, ns := range q.namespaces {
		b.WriteString(ns)
		b.WriteByte(',')
	}
	b.WriteByte('|')
	b.WriteString(selectorKey(q.nsSelector))
	b.WriteByte('|')
	b.WriteString(selectorKey(q.selector))
	return b.String()
}

// selectorKey tells apart the selectors whose String() is the same empty
// string: the one that selects nothing and the one that selects everything.
func selectorKey(s labels.Selector) string {
	if s == nil {
		return "-"
	}
	if _, selectable := s.Requirements(); !selectable {
		return "nothing"
	}
	return "+" + s.String()
}

// selectGroups returns the ids of the pod groups the query selects, in
// index order.
func (t *tables) selectGroups(snap *cluster.Snapshot, q podQuery) []int32 {
	g := t.groups()
	return memo(t, t.selections, q.key(), func() []int32 {
		var ids []int32
		for _, ns := range g.namespaces {
			_, listed := slices.BinarySearch(q.namespaces, ns)
			if !listed && (q.nsSelector == nil || !q.nsSelector.Matches(labels.Set(snap.NamespaceLabels(ns)))) {
				continue
			}
			for _, id := range g.byNamespace[ns] {
				if q.selector.Matches(g.groups[id].labels) {
					ids = append(ids, id)
				}
			}
		}
		return ids
	})
}
