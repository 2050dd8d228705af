package schedulerd

import (
	"context"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagehelpers "k8s.io/component-helpers/storage/volume"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/volumebinding"
)

// VolumeBinding's PreBind, as kube-scheduler runs it: before the pod's
// Binding, the volume chosen for each of its WaitForFirstConsumer claims
// is prebound to the claim (the PV controller finishes the binding), and a
// claim to provision is annotated with the node (its provisioner creates
// the volume there). The pod is bound only once every claim is bound, so
// that it never waits on a node for a volume that will not come; if that
// does not happen within bindTimeoutSeconds, or a provisioner gives up,
// the pod goes back to the queue and is decided again.

// volumeListers read the claims, volumes, pods and nodes PreBind checks,
// from the informers' caches: the PV controller's and the provisioners'
// writes arrive there.
type volumeListers struct {
	claims corelisters.PersistentVolumeClaimLister
	pvs    corelisters.PersistentVolumeLister
	pods   corelisters.PodLister
	nodes  corelisters.NodeLister
}

// preBindVolumes writes what VolumeBinding decided and waits until the
// PV controller has bound every claim.
func (l *Live) preBindVolumes(ctx context.Context, pod *corev1.Pod, vols volumebinding.PodVolumes) error {
	// The objects written, to tell the informers' older copies from ours.
	var bindings []volumebinding.ClaimBinding
	var claims []*corev1.PersistentVolumeClaim
	for _, b := range vols.Bindings {
		// The cache's objects are trimmed: write the informer's.
		pv, err := l.listers.pvs.Get(b.Volume.Name)
		if err != nil {
			return err
		}
		bound, dirty, err := storagehelpers.GetBindVolumeToClaim(pv, b.Claim)
		if err != nil {
			return err
		}
		if dirty {
			klog.V(2).InfoS("Binding volume to claim", "pod", klog.KObj(pod), "claim", klog.KObj(b.Claim), "volume", klog.KObj(pv))
			if bound, err = l.Client.CoreV1().PersistentVolumes().Update(ctx, bound, metav1.UpdateOptions{}); err != nil {
				return err
			}
		}
		bindings = append(bindings, volumebinding.ClaimBinding{Claim: b.Claim, Volume: bound})
	}
	for _, c := range vols.Provisions {
		claim, err := l.listers.claims.PersistentVolumeClaims(c.Namespace).Get(c.Name)
		if err != nil {
			return err
		}
		if claim.Annotations[cluster.AnnSelectedNode] != vols.Node {
			claim = claim.DeepCopy()
			metav1.SetMetaDataAnnotation(&claim.ObjectMeta, cluster.AnnSelectedNode, vols.Node)
			klog.V(2).InfoS("Asking for a volume on the node", "pod", klog.KObj(pod), "claim", klog.KObj(claim), "node", vols.Node)
			if claim, err = l.Client.CoreV1().PersistentVolumeClaims(claim.Namespace).Update(ctx, claim, metav1.UpdateOptions{}); err != nil {
				return err
			}
		}
		claims = append(claims, claim)
	}
	err := wait.PollUntilContextTimeout(ctx, time.Second, vols.Timeout, false, func(context.Context) (bool, error) {
		return l.volumesBound(pod, vols.Node, bindings, claims)
	})
	if err != nil {
		return fmt.Errorf("binding volumes: %w", err)
	}
	return nil
}

// volumesBound reports whether the PV controller has bound every claim
// PreBind wrote, and fails when it never will: the pod is gone, a volume
// lost its claimRef, a provisioner took the node back from a claim (its
// way of asking the scheduler to choose again), or a volume cannot be
// used on the node.
func (l *Live) volumesBound(pod *corev1.Pod, nodeName string, bindings []volumebinding.ClaimBinding, claims []*corev1.PersistentVolumeClaim) (bool, error) {
	if _, err := l.listers.pods.Pods(pod.Namespace).Get(pod.Name); apierrors.IsNotFound(err) {
		return false, fmt.Errorf("pod does not exist any more: %w", err)
	}
	node, err := l.listers.nodes.Get(nodeName)
	if err != nil {
		return false, fmt.Errorf("failed to get node %q: %w", nodeName, err)
	}
	for _, b := range bindings {
		pv, err := l.listers.pvs.Get(b.Volume.Name)
		if err != nil {
			return false, fmt.Errorf("failed to check binding: %w", err)
		}
		claim, err := l.listers.claims.PersistentVolumeClaims(b.Claim.Namespace).Get(b.Claim.Name)
		if err != nil {
			return false, fmt.Errorf("failed to check binding: %w", err)
		}
		if olderThan(pv.ResourceVersion, b.Volume.ResourceVersion) {
			return false, nil
		}
		if err := storagehelpers.CheckNodeAffinity(pv, node.Labels); err != nil {
			return false, fmt.Errorf("pv %q node affinity doesn't match node %q: %w", pv.Name, nodeName, err)
		}
		if pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.UID == "" {
			return false, fmt.Errorf("ClaimRef got reset for pv %q", pv.Name)
		}
		if !cluster.ClaimFullyBound(claim) {
			return false, nil
		}
	}
	for _, written := range claims {
		claim, err := l.listers.claims.PersistentVolumeClaims(written.Namespace).Get(written.Name)
		if err != nil {
			return false, fmt.Errorf("failed to check provisioning pvc: %w", err)
		}
		if olderThan(claim.ResourceVersion, written.ResourceVersion) {
			return false, nil
		}
		if claim.Annotations[cluster.AnnSelectedNode] != nodeName {
			return false, fmt.Errorf("provisioning failed for PVC %q", claim.Name)
		}
		if claim.Spec.VolumeName != "" {
			pv, err := l.listers.pvs.Get(claim.Spec.VolumeName)
			if apierrors.IsNotFound(err) {
				return false, nil // not in the informer's cache yet
			}
			if err != nil {
				return false, err
			}
			if err := storagehelpers.CheckNodeAffinity(pv, node.Labels); err != nil {
				return false, fmt.Errorf("pv %q node affinity doesn't match node %q: %w", pv.Name, nodeName, err)
			}
		}
		if !cluster.ClaimFullyBound(claim) {
			return false, nil
		}
	}
	return true, nil
}

// olderThan compares resourceVersions, which etcd makes increasing
// integers; clients must not, but the scheduler has to tell the copy it
// wrote from an older one still in the informer's cache, as
// kube-scheduler does. A version that is not a number is taken as new.
func olderThan(a, b string) bool {
	x, err1 := strconv.ParseUint(a, 10, 64)
	y, err2 := strconv.ParseUint(b, 10, 64)
	return err1 == nil && err2 == nil && x < y
}
