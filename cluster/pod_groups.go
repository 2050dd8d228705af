package cluster

import (
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/labels"
)

// PodGroup is the pods of one namespace that carry exactly the same labels.
// The replicas of a workload share their labels, so a 150,000-pod cluster
// has a few thousand groups, and a label selector is matched once per group
// instead of once per pod.
type PodGroup struct {
	Namespace string
	Labels    labels.Set
	Pods      []*Pod
}

// PodGroups indexes pods by namespace and labels. It holds pods whatever
// their placement (callers ask a snapshot where each one is now); labels do
// not change with a snapshot's edits, so one index serves a snapshot and
// all its forks.
type PodGroups struct {
	Groups      []PodGroup
	byNamespace map[string][]int32
	namespaces  []string // every namespace that has a pod, sorted
}

// podGroupsMemo builds a snapshot's PodGroups once.
type podGroupsMemo struct {
	once   sync.Once
	groups *PodGroups
}

// PodGroups returns the snapshot's pods grouped by namespace and labels,
// built on first use and shared with its forks, which hold the same pods:
// the scheduler engine and the strategies both select pods through it.
func (s *Snapshot) PodGroups() *PodGroups {
	m := s.groups
	if m == nil {
		return NewPodGroups(s.pods)
	}
	m.once.Do(func() { m.groups = NewPodGroups(s.pods) })
	return m.groups
}

// NewPodGroups groups the pods.
func NewPodGroups(pods []*Pod) *PodGroups {
	g := &PodGroups{byNamespace: make(map[string][]int32)}
	byKey := make(map[string]int32)
	for _, p := range pods {
		key := LabelKey(p.Namespace, p.Labels)
		id, ok := byKey[key]
		if !ok {
			id = int32(len(g.Groups))
			byKey[key] = id
			g.Groups = append(g.Groups, PodGroup{Namespace: p.Namespace, Labels: labels.Set(p.Labels)})
			if _, seen := g.byNamespace[p.Namespace]; !seen {
				g.namespaces = append(g.namespaces, p.Namespace)
			}
			g.byNamespace[p.Namespace] = append(g.byNamespace[p.Namespace], id)
		}
		g.Groups[id].Pods = append(g.Groups[id].Pods, p)
	}
	slices.Sort(g.namespaces)
	return g
}

// LabelKey is a canonical string for a namespace and a label set, for
// caches keyed by them.
func LabelKey(namespace string, l map[string]string) string {
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

// InNamespace returns the indexes in Groups of a namespace's groups.
func (g *PodGroups) InNamespace(namespace string) []int32 { return g.byNamespace[namespace] }

// PodQuery selects pods by namespace and labels, as an affinity term or a
// spread constraint does: a pod matches when its namespace is listed or its
// namespace's labels match NamespaceSelector (nil selects no namespace by
// labels), and its labels match Selector.
type PodQuery struct {
	Namespaces        []string
	NamespaceSelector labels.Selector
	Selector          labels.Selector
}

// Key identifies the query, for caching what it selects.
func (q PodQuery) Key() string {
	var b strings.Builder
	for _, ns := range q.Namespaces {
		b.WriteString(ns)
		b.WriteByte(',')
	}
	b.WriteByte('|')
	b.WriteString(selectorKey(q.NamespaceSelector))
	b.WriteByte('|')
	b.WriteString(selectorKey(q.Selector))
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

// Select returns the indexes in Groups of the groups the query selects, in
// index order; namespaceLabels gives a namespace's labels.
func (g *PodGroups) Select(q PodQuery, namespaceLabels func(string) map[string]string) []int32 {
	var ids []int32
	for _, ns := range g.namespaces {
		if !slices.Contains(q.Namespaces, ns) &&
			(q.NamespaceSelector == nil || !q.NamespaceSelector.Matches(labels.Set(namespaceLabels(ns)))) {
			continue
		}
		for _, id := range g.byNamespace[ns] {
			if q.Selector.Matches(g.Groups[id].Labels) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}
