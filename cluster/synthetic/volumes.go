package synthetic

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// DiskClass is the StorageClass of the StatefulSets' claims: zonal disks
// of DiskDriver, provisioned for the pod's first node.
const (
	DiskClass  = "zonal-ssd"
	DiskDriver = "pd.csi.storage.gke.io"
	// diskLimit is how many disks a node attaches.
	diskLimit = 64
)

// makeStorage adds the disk class and each node's CSINode. It draws nothing
// from the generator's randomness, so that the rest of the cluster is the
// same as without volumes.
func (g *generator) makeStorage() {
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	g.objs.StorageClasses = append(g.objs.StorageClasses, storagev1.StorageClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass"},
		ObjectMeta: metav1.ObjectMeta{Name: DiskClass}, Provisioner: DiskDriver, VolumeBindingMode: &wffc,
	})
	g.objs.CSINodes = make([]storagev1.CSINode, len(g.objs.Nodes))
	for i := range g.objs.Nodes {
		limit := int32(diskLimit)
		g.objs.CSINodes[i] = storagev1.CSINode{
			TypeMeta:   metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "CSINode"},
			ObjectMeta: metav1.ObjectMeta{Name: g.objs.Nodes[i].Name},
			Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{{Name: DiskDriver, NodeID: g.objs.Nodes[i].Name,
				Allocatable: &storagev1.VolumeNodeResources{Count: &limit}}}},
		}
	}
}

// addDisk gives the pod's claim a disk bound to it, in the zone of the node
// the pod runs on (a pending pod's claim waits for its first consumer).
func (g *generator) addDisk(pod *corev1.Pod, claim string, zoneOf map[string]string) {
	class := DiskClass
	size := corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("100Gi")}
	pvc := corev1.PersistentVolumeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: claim},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: &class,
			Resources:        corev1.VolumeResourceRequirements{Requests: size},
		},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending},
	}
	zone, placed := zoneOf[pod.Spec.NodeName]
	if placed {
		pv := "pv-" + pod.Namespace + "-" + claim
		pvc.Spec.VolumeName = pv
		pvc.Annotations = map[string]string{cluster.AnnBindCompleted: "yes"}
		pvc.Status.Phase = corev1.ClaimBound
		g.objs.PersistentVolumes = append(g.objs.PersistentVolumes, corev1.PersistentVolume{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolume"},
			ObjectMeta: metav1.ObjectMeta{Name: pv},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:         size,
				AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				StorageClassName: DiskClass,
				ClaimRef:         &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: pod.Namespace, Name: claim},
				PersistentVolumeSource: corev1.PersistentVolumeSource{
					CSI: &corev1.CSIPersistentVolumeSource{Driver: DiskDriver, VolumeHandle: pv}},
				NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}}}}}},
			},
			Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound},
		})
	}
	g.objs.PersistentVolumeClaims = append(g.objs.PersistentVolumeClaims, pvc)
}

func (g *generator) zoneOfNode() map[string]string {
	if g.zones == nil {
		g.zones = make(map[string]string, len(g.objs.Nodes))
		for i := range g.objs.Nodes {
			g.zones[g.objs.Nodes[i].Name] = g.objs.Nodes[i].Labels[corev1.LabelTopologyZone]
		}
	}
	return g.zones
}
