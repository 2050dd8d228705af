package strategies

import (
	"encoding/json"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// tables holds what a cycle derives once from the parts of the snapshot
// that moves do not change: labels, taints, node affinity, images. Indexes
// are node positions (cluster.Node.Index), the same in every fork. Every
// per-node table is shared by all the pods with the same spec, so that a
// cluster of many replicas of few workloads computes each once.
type tables struct {
	labelGroups *labelGroups
	domains     map[string]*domains
	placements  map[string]*placement
	placementOf map[*cluster.Pod]*placement
	preferred   map[string][]int64
	antiTerms   map[string][]antiTerm
	antiTermsOf map[*cluster.Pod][]antiTerm
	spreadSpecs map[string]*spreadSpec
	specOf      map[*cluster.Pod]*spreadSpec
	images      map[*cluster.Pod]string
	usable      []bool
}

// labelGroup is the pods of one namespace that carry exactly the same
// labels: a selector is matched once per group instead of once per pod.
type labelGroup struct {
	namespace string
	labels    labels.Set
	pods      []*cluster.Pod
}

type labelGroups struct {
	groups      []labelGroup
	byNamespace map[string][]int
	namespaces  []string
	selections  map[string][]int
}

func (in *Input) labelGroups() *labelGroups {
	if g := in.tables.labelGroups; g != nil {
		return g
	}
	g := &labelGroups{byNamespace: make(map[string][]int), selections: make(map[string][]int)}
	byKey := make(map[string]int)
	for _, p := range in.Snapshot.Pods() {
		key := labelKey(p.Namespace, p.Labels)
		id, ok := byKey[key]
		if !ok {
			id = len(g.groups)
			byKey[key] = id
			g.groups = append(g.groups, labelGroup{namespace: p.Namespace, labels: labels.Set(p.Labels)})
			if _, seen := g.byNamespace[p.Namespace]; !seen {
				g.namespaces = append(g.namespaces, p.Namespace)
			}
			g.byNamespace[p.Namespace] = append(g.byNamespace[p.Namespace], id)
		}
		g.groups[id].pods = append(g.groups[id].pods, p)
	}
	slices.Sort(g.namespaces)
	in.tables.labelGroups = g
	return g
}

func labelKey(namespace string, l map[string]string) string {
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString(namespace)
	for _, k := range keys {
		b.WriteByte(0)
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(l[k])
	}
	return b.String()
}

// podQuery selects pods as an affinity term or a spread constraint does: in
// the listed namespaces or those whose labels nsSelector matches (nil: none
// by labels), with labels that selector matches.
type podQuery struct {
	namespaces []string
	nsSelector labels.Selector
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

// eachPod calls fn for every pod, of any phase and placement, that the
// query selects, in snapshot order within each label group.
func (in *Input) eachPod(q podQuery, fn func(p *cluster.Pod)) {
	g := in.labelGroups()
	key := q.key()
	ids, ok := g.selections[key]
	if !ok {
		for _, ns := range g.namespaces {
			if !slices.Contains(q.namespaces, ns) && (q.nsSelector == nil || !q.nsSelector.Matches(labels.Set(in.Snapshot.NamespaceLabels(ns)))) {
				continue
			}
			for _, id := range g.byNamespace[ns] {
				if q.selector.Matches(g.groups[id].labels) {
					ids = append(ids, id)
				}
			}
		}
		g.selections[key] = ids
	}
	for _, id := range ids {
		for _, p := range g.groups[id].pods {
			fn(p)
		}
	}
}

// domains numbers the values of one topology key: of[i] is the domain of
// the node at index i, or -1 when the node lacks the label.
type domains struct {
	of     []int32
	values []string
}

func (in *Input) domains(key string) *domains {
	if d, ok := in.tables.domains[key]; ok {
		return d
	}
	nodes := in.Snapshot.Nodes()
	d := &domains{of: make([]int32, len(nodes))}
	ids := make(map[string]int32)
	for i, n := range nodes {
		v, ok := n.Labels[key]
		if !ok {
			d.of[i] = -1
			continue
		}
		id, seen := ids[v]
		if !seen {
			id = int32(len(d.values))
			ids[v] = id
			d.values = append(d.values, v)
		}
		d.of[i] = id
	}
	if in.tables.domains == nil {
		in.tables.domains = make(map[string]*domains)
	}
	in.tables.domains[key] = d
	return d
}

// placement says, per node index, what the node's fixed properties allow a
// pod of one spec: whether the node matches its nodeSelector and required
// node affinity, whether it tolerates the node's NoSchedule and NoExecute
// taints, and whether the node is one of its possible homes (admits).
type placement struct {
	affinity  []bool
	tolerated []bool
	admits    []bool
	// homes counts the Ready nodes of the policy that admit the pod; -1
	// until asked.
	homes int
}

func (in *Input) placement(p *cluster.Pod) *placement {
	if pl, ok := in.tables.placementOf[p]; ok {
		return pl
	}
	pl := in.placementBySpec(p)
	if in.tables.placementOf == nil {
		in.tables.placementOf = make(map[*cluster.Pod]*placement)
	}
	in.tables.placementOf[p] = pl
	return pl
}

func (in *Input) placementBySpec(p *cluster.Pod) *placement {
	var required *corev1.NodeSelector
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		required = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	spec, _ := json.Marshal([3]any{p.Spec.NodeSelector, required, p.Spec.Tolerations})
	key := string(spec)
	if pl, ok := in.tables.placements[key]; ok {
		return pl
	}
	nodes := in.Snapshot.Nodes()
	pl := &placement{affinity: make([]bool, len(nodes)), tolerated: make([]bool, len(nodes)), admits: make([]bool, len(nodes)), homes: -1}
	req := nodeaffinity.GetRequiredNodeAffinity(p.Pod)
	cordonOK := toleratesUnschedulable(p.Pod)
	for i, n := range nodes {
		ok, err := req.Match(n.Node)
		pl.affinity[i] = ok && err == nil
		pl.tolerated[i] = toleratesHardTaints(p.Pod, n)
		pl.admits[i] = pl.affinity[i] && pl.tolerated[i] && (cordonOK || !n.Unschedulable())
	}
	if in.tables.placements == nil {
		in.tables.placements = make(map[string]*placement)
	}
	in.tables.placements[key] = pl
	return pl
}

// imageKey identifies the set of images of a pod's containers.
func (in *Input) imageKey(p *cluster.Pod) string {
	if k, ok := in.tables.images[p]; ok {
		return k
	}
	images := make([]string, 0, len(p.Spec.Containers))
	for _, c := range p.Spec.Containers {
		images = append(images, c.Image)
	}
	slices.Sort(images)
	k := strings.Join(images, ",")
	if in.tables.images == nil {
		in.tables.images = make(map[*cluster.Pod]string)
	}
	in.tables.images[p] = k
	return k
}
