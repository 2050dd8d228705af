// Package nodevolumelimits is kube-scheduler's NodeVolumeLimits plugin:
// the CSI volumes a node may attach.
package nodevolumelimits

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// Name is the plugin's name in a profile.
const Name = "NodeVolumeLimits"

// ErrReasonMaxVolumeCountExceeded is kube-scheduler's NodeVolumeLimits reason.
const ErrReasonMaxVolumeCountExceeded = "node(s) exceed max volume count"

var reasonMaxVolumeCountExceeded = []string{ErrReasonMaxVolumeCountExceeded}

// migratedDrivers are the CSI drivers that in-tree volume plugins are
// migrated to. kube-scheduler 1.36 counts a volume of these plugins as its
// CSI driver's on every node that has a CSINode.
var migratedDrivers = map[string]string{
	"kubernetes.io/aws-ebs":         "ebs.csi.aws.com",
	"kubernetes.io/gce-pd":          "pd.csi.storage.gke.io",
	"kubernetes.io/azure-disk":      "disk.csi.azure.com",
	"kubernetes.io/cinder":          "cinder.csi.openstack.org",
	"kubernetes.io/portworx-volume": "pxd.portworx.com",
}

// nodeVolumeLimits keeps a pod off nodes where a CSI driver would attach
// more volumes than the node's CSINode allows (allocatable.count): the
// distinct volumes of the pods on the node plus the pod's new ones. It does
// not read VolumeAttachments, so a volume still attached to a node no pod
// there uses is not counted.
type nodeVolumeLimits struct {
	key framework.StateKey
}

var _ framework.FilterPlugin = (*nodeVolumeLimits)(nil)

func New(_ any, h framework.Handle) (framework.Plugin, error) {
	return &nodeVolumeLimits{key: h.StateKey()}, nil
}

// attachedVolume identifies a volume as kube-scheduler counts it: by driver
// and handle, or, for a claim not bound yet, by driver and claim.
type attachedVolume struct {
	driver, handle string
	claimNamespace string
	claimName      string
}

type limitsState struct {
	// reject, when set, is every node's reason (a claim of the pod is
	// missing).
	reject   []string
	newVols  []attachedVolume
	attached map[attachedVolume]struct{}
	counts   map[string]int
}

func (s *limitsState) Reset() {
	s.reject = nil
	s.newVols = s.newVols[:0]
	clear(s.attached)
	clear(s.counts)
}

func (*nodeVolumeLimits) Name() string { return Name }

func (p *nodeVolumeLimits) PreFilter(c *framework.Cycle) framework.PreFilterResult {
	pod := c.Pod().Pod
	if !c.Snapshot().VolumesKnown() || !cluster.AttachesVolumes(pod) {
		return framework.PreFilterResult{Skip: true}
	}
	st := framework.State[limitsState](c, p.key)
	err := attachableVolumes(c.Snapshot(), pod, true, func(v attachedVolume) {
		for _, have := range st.newVols {
			if have == v {
				return
			}
		}
		st.newVols = append(st.newVols, v)
	})
	if err != nil {
		st.reject = []string{err.Error()}
		return framework.PreFilterResult{}
	}
	return framework.PreFilterResult{Skip: len(st.newVols) == 0}
}

// attachableVolumes calls add for each volume of the pod that a CSI driver
// attaches, on a node that has a CSINode. A claim the pod needs and the
// snapshot lacks is an error for a new pod; the volume of a pod already
// running is then not counted, as kube-scheduler does.
func attachableVolumes(snap *cluster.Snapshot, pod *corev1.Pod, newPod bool, add func(attachedVolume)) error {
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		name := cluster.ClaimName(pod, v)
		if name == "" {
			if d, h := inlineDriver(v); d != "" {
				add(attachedVolume{driver: d, handle: h})
			}
			continue
		}
		claim := snap.Claim(pod.Namespace, name)
		if claim == nil {
			if newPod {
				return fmt.Errorf("looking up PVC %s/%s: %s", pod.Namespace, name, framework.ClaimNotFound(name))
			}
			continue
		}
		if d, h := claimDriver(snap, claim); d != "" {
			if h == "" {
				add(attachedVolume{driver: d, claimNamespace: claim.Namespace, claimName: claim.Name})
			} else {
				add(attachedVolume{driver: d, handle: h})
			}
		}
	}
	return nil
}

// claimDriver returns the CSI driver of the claim's volume and the
// volume's handle; for a claim whose volume is not there yet, the driver
// its class provisions with and no handle.
func claimDriver(snap *cluster.Snapshot, claim *corev1.PersistentVolumeClaim) (driver, handle string) {
	if claim.Spec.VolumeName != "" {
		if pv := snap.PersistentVolume(claim.Spec.VolumeName); pv != nil {
			return volumeDriver(pv)
		}
	}
	class := snap.StorageClass(cluster.ClaimClass(claim))
	if class == nil {
		return "", ""
	}
	if d, migrated := migratedDrivers[class.Provisioner]; migrated {
		return d, ""
	}
	return class.Provisioner, ""
}

// volumeDriver names the CSI driver and handle of a PersistentVolume, for
// an in-tree volume those of the driver its plugin migrated to.
func volumeDriver(pv *corev1.PersistentVolume) (driver, handle string) {
	s := &pv.Spec.PersistentVolumeSource
	switch {
	case s.CSI != nil:
		return s.CSI.Driver, s.CSI.VolumeHandle
	case s.AWSElasticBlockStore != nil:
		return migratedDrivers["kubernetes.io/aws-ebs"], s.AWSElasticBlockStore.VolumeID
	case s.GCEPersistentDisk != nil:
		return migratedDrivers["kubernetes.io/gce-pd"], s.GCEPersistentDisk.PDName
	case s.AzureDisk != nil:
		return migratedDrivers["kubernetes.io/azure-disk"], s.AzureDisk.DataDiskURI
	case s.Cinder != nil:
		return migratedDrivers["kubernetes.io/cinder"], s.Cinder.VolumeID
	case s.PortworxVolume != nil:
		return migratedDrivers["kubernetes.io/portworx-volume"], s.PortworxVolume.VolumeID
	}
	return "", ""
}

// inlineDriver is volumeDriver for a volume written into the pod.
func inlineDriver(v *corev1.Volume) (driver, handle string) {
	switch {
	case v.AWSElasticBlockStore != nil:
		return migratedDrivers["kubernetes.io/aws-ebs"], v.AWSElasticBlockStore.VolumeID
	case v.GCEPersistentDisk != nil:
		return migratedDrivers["kubernetes.io/gce-pd"], v.GCEPersistentDisk.PDName
	case v.AzureDisk != nil:
		return migratedDrivers["kubernetes.io/azure-disk"], v.AzureDisk.DataDiskURI
	case v.Cinder != nil:
		return migratedDrivers["kubernetes.io/cinder"], v.Cinder.VolumeID
	case v.PortworxVolume != nil:
		return migratedDrivers["kubernetes.io/portworx-volume"], v.PortworxVolume.VolumeID
	}
	return "", ""
}

func (p *nodeVolumeLimits) Filter(c *framework.Cycle, i int) []string {
	st := framework.State[limitsState](c, p.key)
	if st.reject != nil {
		return st.reject
	}
	csiNode := c.Snapshot().CSINodeAt(i)
	if csiNode == nil || !limitsAny(csiNode, st.newVols) {
		return nil
	}
	// Most nodes are far below their limits: the volumes their pods
	// declare, counted without looking them up, bound what is attached.
	declared := 0
	for _, q := range c.Nodes()[i].PodsWithVolumes() {
		declared += len(q.Spec.Volumes)
	}
	if withinLimits(csiNode, st.newVols, declared) {
		return nil
	}
	if st.attached == nil {
		st.attached = make(map[attachedVolume]struct{})
		st.counts = make(map[string]int)
	}
	clear(st.attached)
	clear(st.counts)
	for _, q := range c.Nodes()[i].PodsWithVolumes() {
		if q == c.Pod() {
			continue
		}
		_ = attachableVolumes(c.Snapshot(), q.Pod, false, func(v attachedVolume) {
			if _, seen := st.attached[v]; !seen {
				st.attached[v] = struct{}{}
				st.counts[v.driver]++
			}
		})
	}
	for _, d := range csiNode.Spec.Drivers {
		if d.Allocatable == nil || d.Allocatable.Count == nil {
			continue
		}
		n := 0
		for _, v := range st.newVols {
			if _, attached := st.attached[v]; v.driver == d.Name && !attached {
				n++
			}
		}
		if n > 0 && st.counts[d.Name]+n > int(*d.Allocatable.Count) {
			return reasonMaxVolumeCountExceeded
		}
	}
	return nil
}

// withinLimits reports whether every limited driver of the new volumes
// has room for them and for attached more volumes.
func withinLimits(n *storagev1.CSINode, vols []attachedVolume, attached int) bool {
	for _, d := range n.Spec.Drivers {
		if d.Allocatable == nil || d.Allocatable.Count == nil {
			continue
		}
		want := 0
		for _, v := range vols {
			if v.driver == d.Name {
				want++
			}
		}
		if want > 0 && attached+want > int(*d.Allocatable.Count) {
			return false
		}
	}
	return true
}

// limitsAny reports whether the node limits a driver of one of the volumes.
func limitsAny(n *storagev1.CSINode, vols []attachedVolume) bool {
	for _, d := range n.Spec.Drivers {
		if d.Allocatable == nil || d.Allocatable.Count == nil {
			continue
		}
		for _, v := range vols {
			if v.driver == d.Name {
				return true
			}
		}
	}
	return false
}
