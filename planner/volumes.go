package planner

import (
	"fmt"
	"slices"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// missingVolume returns why the snapshot cannot tell where the pod's
// replacement could start, or "": a claim of the pod, or the volume the
// claim is bound to, is not in it. Such a pod stays: a replacement that
// cannot mount its volume stays Pending.
func missingVolume(snap *cluster.Snapshot, p *cluster.Pod) string {
	for i := range p.Spec.Volumes {
		name := cluster.ClaimName(p.Pod, &p.Spec.Volumes[i])
		if name == "" {
			continue
		}
		claim := snap.Claim(p.Namespace, name)
		if claim == nil {
			return fmt.Sprintf("its PersistentVolumeClaim %s/%s is not in the snapshot: where it could start is unknown", p.Namespace, name)
		}
		if pv := claim.Spec.VolumeName; pv != "" && snap.PersistentVolume(pv) == nil {
			return fmt.Sprintf("its PersistentVolumeClaim %s/%s is bound to PersistentVolume %s, which is not in the snapshot: where it could start is unknown",
				p.Namespace, name, pv)
		}
	}
	return ""
}

// claimClassProtection returns why evictable.pvcStorageClasses keeps the
// pod in place, or "": a claim of the pod is of a class the list leaves
// out. A claim the snapshot lacks is missingVolume's to report.
func claimClassProtection(snap *cluster.Snapshot, classes []string, p *cluster.Pod) string {
	for i := range p.Spec.Volumes {
		name := cluster.ClaimName(p.Pod, &p.Spec.Volumes[i])
		if name == "" {
			continue
		}
		claim := snap.Claim(p.Namespace, name)
		if claim == nil {
			continue
		}
		if class := cluster.ClaimClass(claim); !slices.Contains(classes, class) {
			if class == "" {
				return fmt.Sprintf("uses PersistentVolumeClaim %s/%s, of no StorageClass, which evictable.pvcStorageClasses does not list", p.Namespace, name)
			}
			return fmt.Sprintf("uses PersistentVolumeClaim %s/%s of StorageClass %s, which evictable.pvcStorageClasses does not list", p.Namespace, name, class)
		}
	}
	return ""
}
