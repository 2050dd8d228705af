package cluster

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	storagehelpers "k8s.io/component-helpers/storage/volume"
)

// The methods of this file keep a long-lived snapshot's claims,
// PersistentVolumes, StorageClasses and CSINodes up to date with a watch,
// indexed as New indexes them. Each takes a shallow copy of the object it
// is given before trimming it: a watch's objects are shared with its
// store, which must not see them change.
//
// They leave the generation alone: the engine's tables derive nothing
// from volumes, and the volume plugins read them from the snapshot on
// every call.

// SetVolumesListed says that the snapshot holds every claim, volume, class
// and CSINode of the cluster, even if there are none: from then on a claim
// the snapshot does not have is one that does not exist.
func (s *Snapshot) SetVolumesListed() { s.vol.known = true }

// SetClaim adds the PersistentVolumeClaim, or replaces the one of the same
// namespace and name.
func (s *Snapshot) SetClaim(obj *corev1.PersistentVolumeClaim) {
	c := *obj
	trimClaim(&c)
	s.vol.claims[claimKey{c.Namespace, c.Name}] = &c
	s.vol.known = true
}

// DeleteClaim forgets the claim namespace/name.
func (s *Snapshot) DeleteClaim(namespace, name string) {
	delete(s.vol.claims, claimKey{namespace, name})
}

// SetPersistentVolume adds the PersistentVolume, or replaces the one of
// the same name, in the list of its class too.
func (s *Snapshot) SetPersistentVolume(obj *corev1.PersistentVolume) {
	pv := *obj
	trimVolume(&pv)
	s.DeletePersistentVolume(pv.Name)
	s.vol.pvs[pv.Name] = &pv
	cls := storagehelpers.GetPersistentVolumeClass(&pv)
	list := s.vol.pvsByCls[cls]
	i, _ := slices.BinarySearchFunc(list, pv.Name, func(v *corev1.PersistentVolume, name string) int { return strings.Compare(v.Name, name) })
	// A new slice, not a shifted one: a fork shares the old one.
	s.vol.pvsByCls[cls] = slices.Insert(slices.Clip(list), i, &pv)
	s.vol.known = true
}

// DeletePersistentVolume forgets the PersistentVolume of that name.
func (s *Snapshot) DeletePersistentVolume(name string) {
	old := s.vol.pvs[name]
	if old == nil {
		return
	}
	delete(s.vol.pvs, name)
	cls := storagehelpers.GetPersistentVolumeClass(old)
	rest := slices.DeleteFunc(slices.Clone(s.vol.pvsByCls[cls]), func(v *corev1.PersistentVolume) bool { return v == old })
	if len(rest) == 0 {
		delete(s.vol.pvsByCls, cls)
	} else {
		s.vol.pvsByCls[cls] = rest
	}
}

// SetStorageClass adds the StorageClass, or replaces the one of the same
// name.
func (s *Snapshot) SetStorageClass(obj *storagev1.StorageClass) {
	sc := *obj
	sc.Parameters, sc.MountOptions, sc.Annotations, sc.Labels = nil, nil, nil, nil
	s.vol.classes[sc.Name] = &sc
	s.vol.known = true
}

// DeleteStorageClass forgets the StorageClass of that name.
func (s *Snapshot) DeleteStorageClass(name string) { delete(s.vol.classes, name) }

// SetCSINode adds the CSINode, or replaces the one of the same node, and
// lines it up with its node.
func (s *Snapshot) SetCSINode(obj *storagev1.CSINode) {
	n := *obj
	// trimCSINode edits the drivers in place: they are the watch's.
	n.Spec.Drivers = slices.Clone(n.Spec.Drivers)
	trimCSINode(&n)
	s.vol.csiNodes[n.Name] = &n
	s.vol.known = true
	s.reindexCSINodes()
}

// DeleteCSINode forgets the CSINode of the node of that name.
func (s *Snapshot) DeleteCSINode(name string) {
	if _, ok := s.vol.csiNodes[name]; !ok {
		return
	}
	delete(s.vol.csiNodes, name)
	s.reindexCSINodes()
}

// reindexCSINodes builds csiByIndex afresh, as New would, rather than
// editing the one a fork may share; nil when there are no CSINodes left.
func (s *Snapshot) reindexCSINodes() {
	s.vol.csiByIndex = nil
	s.vol.indexCSINodes(s.nodes)
}
