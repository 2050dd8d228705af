package cluster

import (
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// The methods of this file keep a long-lived snapshot up to date with a
// watch, one object at a time, instead of building a new one from lists: a
// live scheduler that rebuilt its snapshot for every pod would spend its
// time copying the cluster. They keep every index New builds (pods and
// nodes sorted by name, placement, workloads, budgets, claim users) as New
// would have built it from the same objects.
//
// A fork taken before one of these changes must not be used after it: pod
// ids and node indexes are renumbered in place.

// Generation names the snapshot's set of objects, uniquely in the
// process: New gives each snapshot a new one, Fork and Scratch keep it, and
// it changes whenever a pod or node is added or deleted, or one changes
// what is derived from its labels, taints, images, cordon or owners; it
// stays the same across Place, Move, Remove and updates that only change
// where a pod runs or its status. Whatever is derived from a snapshot's
// objects (the engine's tables) holds for every snapshot of the same
// generation.
func (s *Snapshot) Generation() uint64 { return s.generation }

// objectsChanged records a change to the snapshot's set of objects: what
// is derived from them is derived again.
func (s *Snapshot) objectsChanged() {
	s.generation = generations.Add(1)
	s.groups = new(podGroupsMemo)
}

// SetPod adds the pod, or replaces the pod of the same namespace and name,
// and accounts for it on the node it is bound to. The object is kept, not
// copied. It returns the snapshot's Pod.
func (s *Snapshot) SetPod(obj *corev1.Pod, w Workload) *Pod {
	key := obj.Namespace + "/" + obj.Name
	if old := s.podIndex[key]; old != nil {
		if samePodShape(old, obj, w) {
			s.refreshPod(old, obj)
			return old
		}
		s.DeletePod(key)
	}
	i, _ := slices.BinarySearchFunc(s.pods, key, func(p *Pod, key string) int { return strings.Compare(p.Key, key) })
	p := newPod(obj, i)
	p.Workload = w
	p.specIDs = s.specs.of(obj)
	if obj.Spec.Priority == nil && obj.Spec.PriorityClassName != "" {
		if v, ok := s.PriorityClassValue(obj.Spec.PriorityClassName); ok {
			p.Priority = v
		}
	}
	// New slices, not shifted ones: a fork shares the old ones.
	s.pods = slices.Insert(slices.Clip(s.pods), i, p)
	s.placement = slices.Insert(slices.Clip(s.placement), i, -1)
	s.pdbsByPod = slices.Insert(slices.Clip(s.pdbsByPod), i, s.pdbsCovering(p))
	for j := i + 1; j < len(s.pods); j++ {
		s.pods[j].id = j
	}
	s.podIndex[key] = p
	if !w.IsZero() {
		pods := append(slices.Clip(s.workloads[w]), p)
		slices.SortFunc(pods, func(a, b *Pod) int { return strings.Compare(a.Key, b.Key) })
		s.workloads[w] = pods
	}
	s.vol.indexClaimUsers([]*Pod{p})
	s.bind(p)
	s.renominate(p)
	s.objectsChanged()
	return p
}

// samePodShape reports whether obj changes nothing the snapshot derives
// from the pod other than its node, its requests and its phase: the same
// labels, owners, priority, workload and volumes.
func samePodShape(old *Pod, obj *corev1.Pod, w Workload) bool {
	return old.Workload == w && old.UID == obj.UID &&
		maps.Equal(old.Labels, obj.Labels) &&
		equality.Semantic.DeepEqual(old.OwnerReferences, obj.OwnerReferences) &&
		equality.Semantic.DeepEqual(old.Spec.Priority, obj.Spec.Priority) &&
		old.Spec.PriorityClassName == obj.Spec.PriorityClassName &&
		equality.Semantic.DeepEqual(old.Spec.Volumes, obj.Spec.Volumes) &&
		equality.Semantic.DeepEqual(old.Spec.Affinity, obj.Spec.Affinity)
}

// refreshPod gives p the new object in place, so that what holds pointers to
// p (the engine's tables) stays valid: p leaves its node under the old
// object's accounting and comes back under the new one's.
func (s *Snapshot) refreshPod(p *Pod, obj *corev1.Pod) {
	s.unbind(p)
	fresh := newPod(obj, p.id)
	fresh.Workload, fresh.Usage = p.Workload, p.Usage
	fresh.specIDs = s.specs.of(obj)
	if obj.Spec.Priority == nil && obj.Spec.PriorityClassName != "" {
		fresh.Priority = p.Priority
	}
	*p = *fresh
	s.bind(p)
	s.renominate(p)
}

// renominate keeps the pod in the nominated pods, sorted by key, exactly
// when New would have listed it there.
func (s *Snapshot) renominate(p *Pod) {
	i, found := slices.BinarySearchFunc(s.nominated, p.Key, func(q *Pod, key string) int { return strings.Compare(q.Key, key) })
	want := len(nominatedPods([]*Pod{p})) == 1
	switch {
	case want && !found:
		s.nominated = slices.Insert(slices.Clip(s.nominated), i, p)
	case !want && found:
		s.nominated = slices.Delete(slices.Clone(s.nominated), i, i+1)
	case want && found:
		s.nominated[i] = p
	}
}

// bind accounts for the pod on the node its object names, when the snapshot
// holds that node and the pod has not finished.
func (s *Snapshot) bind(p *Pod) {
	if p.Spec.NodeName == "" || p.IsTerminal() {
		return
	}
	if ni, ok := s.nodeIndex[p.Spec.NodeName]; ok {
		s.editable(ni).add(p)
		s.placement[p.id] = int32(ni)
	}
}

// unbind takes the pod off whatever node holds it in the snapshot.
func (s *Snapshot) unbind(p *Pod) {
	if ni := s.placement[p.id]; ni >= 0 {
		s.editable(int(ni)).remove(p)
		s.placement[p.id] = -1
	}
}

// DeletePod takes the pod out of the snapshot; nothing when it is not there.
func (s *Snapshot) DeletePod(key string) {
	p := s.podIndex[key]
	if p == nil {
		return
	}
	s.unbind(p)
	i := p.id
	s.pods = slices.Delete(slices.Clone(s.pods), i, i+1)
	s.placement = slices.Delete(slices.Clone(s.placement), i, i+1)
	s.pdbsByPod = slices.Delete(slices.Clone(s.pdbsByPod), i, i+1)
	for j := i; j < len(s.pods); j++ {
		s.pods[j].id = j
	}
	delete(s.podIndex, key)
	s.nominated = slices.DeleteFunc(slices.Clone(s.nominated), func(q *Pod) bool { return q == p })
	if !p.Workload.IsZero() {
		rest := slices.DeleteFunc(slices.Clone(s.workloads[p.Workload]), func(q *Pod) bool { return q == p })
		if len(rest) == 0 {
			delete(s.workloads, p.Workload)
		} else {
			s.workloads[p.Workload] = rest
		}
	}
	for k, users := range s.vol.claimUsers {
		if slices.Contains(users, p) {
			s.vol.claimUsers[k] = slices.DeleteFunc(slices.Clone(users), func(q *Pod) bool { return q == p })
		}
	}
	p.id = -1
	s.objectsChanged()
}

// SetNode adds the node, or replaces the node of the same name. The pods
// bound to it are accounted on it, and the pods placed on it by edits stay
// there. The object is kept, not copied.
func (s *Snapshot) SetNode(obj *corev1.Node) {
	if i, ok := s.nodeIndex[obj.Name]; ok {
		old := s.nodes[i]
		n := newNode(obj, i)
		n.owner = s.id
		n.Usage, n.Score = old.Usage, old.Score
		for _, p := range old.Pods() {
			n.add(p)
		}
		s.nodes[i] = n
		if !sameNodeShape(old.Node, obj) {
			s.objectsChanged()
		}
		return
	}
	i, _ := slices.BinarySearchFunc(s.nodes, obj.Name, func(n *Node, name string) int { return strings.Compare(n.Name, name) })
	n := newNode(obj, i)
	n.owner = s.id
	s.nodes = slices.Insert(slices.Clip(s.nodes), i, n)
	s.renumberNodes(i, func(ni int32) int32 {
		if ni >= int32(i) {
			return ni + 1
		}
		return ni
	})
	for _, p := range s.pods {
		if p.Spec.NodeName == obj.Name && s.placement[p.id] < 0 {
			s.bind(p)
		}
	}
	s.objectsChanged()
}

// sameNodeShape reports whether the new object keeps what is derived from
// the node's labels, taints, images and cordon.
func sameNodeShape(old, obj *corev1.Node) bool {
	return maps.Equal(old.Labels, obj.Labels) &&
		equality.Semantic.DeepEqual(old.Spec.Taints, obj.Spec.Taints) &&
		old.Spec.Unschedulable == obj.Spec.Unschedulable &&
		equality.Semantic.DeepEqual(old.Status.Images, obj.Status.Images)
}

// DeleteNode takes the node out of the snapshot. Its pods stay, on no node,
// as a deleted node's pods do until the garbage collector removes them.
func (s *Snapshot) DeleteNode(name string) {
	i, ok := s.nodeIndex[name]
	if !ok {
		return
	}
	for _, p := range s.nodes[i].Pods() {
		s.placement[p.id] = -1
	}
	s.nodes = slices.Delete(slices.Clone(s.nodes), i, i+1)
	delete(s.nodeIndex, name)
	s.renumberNodes(i, func(ni int32) int32 {
		if ni > int32(i) {
			return ni - 1
		}
		return ni
	})
	s.objectsChanged()
}

// renumberNodes gives the nodes from index from on their new index and maps
// the placement table's node indexes with to.
func (s *Snapshot) renumberNodes(from int, to func(int32) int32) {
	for j := from; j < len(s.nodes); j++ {
		n := s.editable(j)
		n.index = j
		s.nodeIndex[n.Name] = j
	}
	for k, ni := range s.placement {
		if ni >= 0 {
			s.placement[k] = to(ni)
		}
	}
	s.vol.indexCSINodes(s.nodes)
}

// SetNamespace adds or replaces a namespace, whose labels namespace
// selectors of affinity terms read.
func (s *Snapshot) SetNamespace(ns *corev1.Namespace) {
	if old := s.namespaces[ns.Name]; old == nil || !maps.Equal(old.Labels, ns.Labels) {
		s.objectsChanged()
	}
	s.namespaces[ns.Name] = ns
}

// DeleteNamespace forgets a namespace.
func (s *Snapshot) DeleteNamespace(name string) {
	if _, ok := s.namespaces[name]; ok {
		delete(s.namespaces, name)
		s.objectsChanged()
	}
}
