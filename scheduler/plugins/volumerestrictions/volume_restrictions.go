// Package volumerestrictions is kube-scheduler's VolumeRestrictions
// plugin: disks that one node at a time may use, and ReadWriteOncePod
// claims.
package volumerestrictions

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// Name is the plugin's name in a profile.
const Name = "VolumeRestrictions"

// kube-scheduler's VolumeRestrictions reasons.
const (
	ErrReasonDiskConflict             = "node(s) had no available disk"
	ErrReasonReadWriteOncePodConflict = "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod"
)

var (
	reasonDiskConflict             = []string{ErrReasonDiskConflict}
	reasonReadWriteOncePodConflict = []string{ErrReasonReadWriteOncePodConflict}
)

// volumeRestrictions keeps a pod from a ReadWriteOncePod claim another pod
// uses (on any node: the claim's one pod must go first), and off nodes where
// a pod mounts the same inline GCE PD, EBS volume, iSCSI target or RBD image
// in a way the disk cannot share.
type volumeRestrictions struct {
	key framework.StateKey
}

var _ framework.FilterPlugin = (*volumeRestrictions)(nil)

func New(_ any, h framework.Handle) (framework.Plugin, error) {
	return &volumeRestrictions{key: h.StateKey()}, nil
}

type restrictionsState struct {
	// inline: the pod has inline disks to check against each node's pods.
	inline bool
	// rwopInUse: a ReadWriteOncePod claim of the pod is used by another.
	rwopInUse bool
}

func (*volumeRestrictions) Name() string { return Name }

func (p *volumeRestrictions) PreFilter(c *framework.Cycle) framework.PreFilterResult {
	pod := c.Pod().Pod
	if !framework.UsesClaimVolume(pod) && !hasAnyInlineDisk(pod) {
		return framework.PreFilterResult{Skip: true}
	}
	st := framework.State[restrictionsState](c, p.key)
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		st.inline = st.inline || hasInlineDisk(v)
		if v.PersistentVolumeClaim == nil || !c.Snapshot().VolumesKnown() {
			continue
		}
		name := v.PersistentVolumeClaim.ClaimName
		claim := c.Snapshot().Claim(pod.Namespace, name)
		if claim == nil {
			return framework.PreFilterResult{Reject: framework.ClaimNotFound(name)}
		}
		if slices.Contains(claim.Spec.AccessModes, corev1.ReadWriteOncePod) && c.Snapshot().ClaimInUse(pod.Namespace, name, c.Pod()) {
			st.rwopInUse = true
		}
	}
	return framework.PreFilterResult{Skip: !st.inline && !st.rwopInUse}
}

func hasAnyInlineDisk(pod *corev1.Pod) bool {
	for i := range pod.Spec.Volumes {
		if hasInlineDisk(&pod.Spec.Volumes[i]) {
			return true
		}
	}
	return false
}

func hasInlineDisk(v *corev1.Volume) bool {
	return v.GCEPersistentDisk != nil || v.AWSElasticBlockStore != nil || v.RBD != nil || v.ISCSI != nil
}

func (p *volumeRestrictions) Filter(c *framework.Cycle, i int) []string {
	st := framework.State[restrictionsState](c, p.key)
	if st.inline {
		for vi := range c.Pod().Spec.Volumes {
			v := &c.Pod().Spec.Volumes[vi]
			if !hasInlineDisk(v) {
				continue
			}
			for _, other := range c.Nodes()[i].Pods() {
				if other != c.Pod() && diskConflict(v, other.Pod) {
					return reasonDiskConflict
				}
			}
		}
	}
	if st.rwopInUse {
		return reasonReadWriteOncePodConflict
	}
	return nil
}

// diskConflict reports whether a pod already on the node mounts the same
// inline disk as v in a way the disk cannot share: a GCE PD unless both
// mount it read-only, an EBS volume at all, an iSCSI target or an RBD image
// (same monitor, pool and image) unless both mount it read-only.
func diskConflict(v *corev1.Volume, other *corev1.Pod) bool {
	for i := range other.Spec.Volumes {
		e := &other.Spec.Volumes[i]
		if d, ed := v.GCEPersistentDisk, e.GCEPersistentDisk; d != nil && ed != nil &&
			d.PDName == ed.PDName && !(d.ReadOnly && ed.ReadOnly) {
			return true
		}
		if d, ed := v.AWSElasticBlockStore, e.AWSElasticBlockStore; d != nil && ed != nil && d.VolumeID == ed.VolumeID {
			return true
		}
		if d, ed := v.ISCSI, e.ISCSI; d != nil && ed != nil && d.IQN == ed.IQN && !(d.ReadOnly && ed.ReadOnly) {
			return true
		}
		if d, ed := v.RBD, e.RBD; d != nil && ed != nil && overlap(d.CephMonitors, ed.CephMonitors) &&
			d.RBDPool == ed.RBDPool && d.RBDImage == ed.RBDImage && !(d.ReadOnly && ed.ReadOnly) {
			return true
		}
	}
	return false
}

func overlap(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}
