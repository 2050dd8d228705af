package framework

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// ClaimNotFound is the API's not-found error for a claim, as
// kube-scheduler's listers word it: the reason of each volume plugin that
// looks a pod's claim up and does not find it.
func ClaimNotFound(name string) string {
	return fmt.Sprintf("persistentvolumeclaim %q not found", name)
}

// UsesClaimVolume reports whether the pod has a persistentVolumeClaim
// volume (the kind VolumeZone and VolumeRestrictions look up; a generic
// ephemeral volume is VolumeBinding's).
func UsesClaimVolume(pod *corev1.Pod) bool {
	for i := range pod.Spec.Volumes {
		if pod.Spec.Volumes[i].PersistentVolumeClaim != nil {
			return true
		}
	}
	return false
}
