package clustertest

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// Claim adds a volume named after the claim that mounts the
// PersistentVolumeClaim of that name.
func (b *PodBuilder) Claim(name string) *PodBuilder {
	return b.Volume(corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}})
}

// PVBuilder builds an Available 10Gi ReadWriteOnce PersistentVolume of no
// class unless told otherwise.
type PVBuilder struct{ pv corev1.PersistentVolume }

// PV starts a PersistentVolume.
func PV(name string) *PVBuilder {
	return &PVBuilder{pv: corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(Created)},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource: corev1.PersistentVolumeSource{
				HostPath: &corev1.HostPathVolumeSource{Path: "/mnt/" + name}},
		},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeAvailable},
	}}
}

// Class sets spec.storageClassName.
func (b *PVBuilder) Class(name string) *PVBuilder { b.pv.Spec.StorageClassName = name; return b }

// Capacity sets the volume's size.
func (b *PVBuilder) Capacity(q string) *PVBuilder {
	b.pv.Spec.Capacity[corev1.ResourceStorage] = resource.MustParse(q)
	return b
}

// Label sets a label, such as the zone labels VolumeZone reads.
func (b *PVBuilder) Label(k, v string) *PVBuilder {
	if b.pv.Labels == nil {
		b.pv.Labels = map[string]string{}
	}
	b.pv.Labels[k] = v
	return b
}

// Affinity requires nodes whose label key has one of the values, as a
// local volume or a zonal disk does.
func (b *PVBuilder) Affinity(key string, values ...string) *PVBuilder {
	b.pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}}}}}}
	return b
}

// AccessModes sets the volume's access modes.
func (b *PVBuilder) AccessModes(m ...corev1.PersistentVolumeAccessMode) *PVBuilder {
	b.pv.Spec.AccessModes = m
	return b
}

// CSI makes the volume one of a CSI driver, with that handle.
func (b *PVBuilder) CSI(driver, handle string) *PVBuilder {
	b.pv.Spec.PersistentVolumeSource = corev1.PersistentVolumeSource{
		CSI: &corev1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: handle}}
	return b
}

// BoundTo binds the volume to the claim namespace/name, as the PV
// controller does.
func (b *PVBuilder) BoundTo(namespace, claim string) *PVBuilder {
	b.pv.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: namespace, Name: claim}
	b.pv.Status.Phase = corev1.VolumeBound
	return b
}

// Obj returns the volume.
func (b *PVBuilder) Obj() corev1.PersistentVolume { return b.pv }

// PVCBuilder builds a pending ReadWriteOnce claim for 1Gi of no class
// unless told otherwise.
type PVCBuilder struct{ c corev1.PersistentVolumeClaim }

// PVC starts a PersistentVolumeClaim.
func PVC(namespace, name string) *PVCBuilder {
	empty := ""
	return &PVCBuilder{c: corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, CreationTimestamp: metav1.NewTime(Created)},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: &empty,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending},
	}}
}

// Class sets spec.storageClassName.
func (b *PVCBuilder) Class(name string) *PVCBuilder { b.c.Spec.StorageClassName = &name; return b }

// Request sets the storage the claim asks for.
func (b *PVCBuilder) Request(q string) *PVCBuilder {
	b.c.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(q)
	return b
}

// AccessModes sets the claim's access modes.
func (b *PVCBuilder) AccessModes(m ...corev1.PersistentVolumeAccessMode) *PVCBuilder {
	b.c.Spec.AccessModes = m
	return b
}

// Bound binds the claim to the volume, as the PV controller does when it
// is done: spec.volumeName, the bind-completed annotation, phase Bound.
func (b *PVCBuilder) Bound(pv string) *PVCBuilder {
	b.c.Spec.VolumeName = pv
	b.annotate(cluster.AnnBindCompleted, "yes")
	b.c.Status.Phase = corev1.ClaimBound
	return b
}

// SelectedNode is the annotation kube-scheduler sets on a
// WaitForFirstConsumer claim it chose a node for.
func (b *PVCBuilder) SelectedNode(node string) *PVCBuilder {
	b.annotate(cluster.AnnSelectedNode, node)
	return b
}

// Lost is a claim whose volume is gone.
func (b *PVCBuilder) Lost(pv string) *PVCBuilder {
	b.c.Spec.VolumeName = pv
	b.annotate(cluster.AnnBindCompleted, "yes")
	b.c.Status.Phase = corev1.ClaimLost
	return b
}

func (b *PVCBuilder) annotate(k, v string) {
	if b.c.Annotations == nil {
		b.c.Annotations = map[string]string{}
	}
	b.c.Annotations[k] = v
}

// Obj returns the claim.
func (b *PVCBuilder) Obj() corev1.PersistentVolumeClaim { return b.c }

// StorageClass is a class of the provisioner, with the binding mode and,
// when given, allowed topologies: zones under topology.kubernetes.io/zone.
// The provisioner kubernetes.io/no-provisioner provisions nothing, as for
// local volumes.
func StorageClass(name, provisioner string, mode storagev1.VolumeBindingMode, zones ...string) storagev1.StorageClass {
	sc := storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: provisioner, VolumeBindingMode: &mode}
	if len(zones) > 0 {
		sc.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{
			{Key: corev1.LabelTopologyZone, Values: zones}}}}
	}
	return sc
}

// CSINode is the CSINode of a node on which the driver can attach at most
// count volumes.
func CSINode(node, driver string, count int32) storagev1.CSINode {
	return storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: node}, Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{
		{Name: driver, NodeID: node, Allocatable: &storagev1.VolumeNodeResources{Count: &count}}}}}
}
