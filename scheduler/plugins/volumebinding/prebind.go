package volumebinding

import (
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	storagehelpers "k8s.io/component-helpers/storage/volume"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// PodVolumes is what VolumeBinding decided, at Reserve, for a pod's
// claims that wait for their first consumer: which available volume each
// takes on the chosen node, and which its class provisions there. The live
// scheduler carries it out in PreBind, before the pod's Binding, as
// kube-scheduler does: a pod bound to a node whose volume is never bound
// or provisioned would wait for ever.
type PodVolumes struct {
	// Node is the node the pod goes to.
	Node string
	// Bindings pair a claim with the volume it takes: Volume is the
	// volume with its claimRef set to the claim, as the PV controller
	// expects a scheduler to prebind it.
	Bindings []ClaimBinding
	// Provisions are the claims annotated with the node
	// (volume.kubernetes.io/selected-node), so that their provisioner
	// creates a volume that the node can use.
	Provisions []*corev1.PersistentVolumeClaim
	// Timeout is how long the PV controller and the provisioners have to
	// finish: the profile's VolumeBindingArgs.bindTimeoutSeconds.
	Timeout time.Duration
}

// ClaimBinding is a claim and the available volume chosen for it.
type ClaimBinding struct {
	Claim  *corev1.PersistentVolumeClaim
	Volume *corev1.PersistentVolume
}

// FailedMessage is kube-scheduler's message for a pod whose volumes could
// not be bound before it.
func (v PodVolumes) FailedMessage(err error) string {
	return fmt.Sprintf("running PreBind plugin %q: %v", Name, err)
}

// Empty reports that there is nothing to bind before the pod.
func (v PodVolumes) Empty() bool { return len(v.Bindings) == 0 && len(v.Provisions) == 0 }

// Volumes returns what binding the pod's unbound WaitForFirstConsumer
// claims on node takes, with timeout, the profile's bindTimeoutSeconds;
// nothing when every claim is bound already. The objects returned are new:
// the snapshot's are not changed.
//
// It fails when the node can no longer take the claims, which a node the
// engine just chose on the same snapshot always can.
func Volumes(snap *cluster.Snapshot, pod *cluster.Pod, node string, timeout time.Duration) (PodVolumes, error) {
	out := PodVolumes{Node: node, Timeout: timeout}
	if !snap.VolumesKnown() || !cluster.UsesClaims(pod.Pod) {
		return out, nil
	}
	n := snap.Node(node)
	if n == nil {
		return out, fmt.Errorf("node %q is not in the cache", node)
	}
	var claims podClaims
	if msg := claims.collect(snap, pod.Pod); msg != "" {
		return out, errors.New(msg)
	}
	if len(claims.unbound) == 0 {
		return out, nil
	}
	sortBySize(claims.unbound)
	bindings, provision, ok := matchUnboundClaims(snap, claims.unbound, n.Node)
	if !ok {
		return out, fmt.Errorf("node %q can no longer take the pod's unbound claims", node)
	}
	for _, b := range bindings {
		pv, _, err := storagehelpers.GetBindVolumeToClaim(b.Volume, b.Claim)
		if err != nil {
			return out, err
		}
		out.Bindings = append(out.Bindings, ClaimBinding{Claim: b.Claim, Volume: pv})
	}
	for _, claim := range provision {
		if claim.Annotations[cluster.AnnSelectedNode] == node {
			out.Provisions = append(out.Provisions, claim)
			continue
		}
		c := claim.DeepCopy()
		metav1.SetMetaDataAnnotation(&c.ObjectMeta, cluster.AnnSelectedNode, node)
		out.Provisions = append(out.Provisions, c)
	}
	return out, nil
}

// sortBySize orders claims by the storage they request, smallest first, so
// that each takes the smallest volume that fits it, as kube-scheduler
// matches them.
func sortBySize(claims []*corev1.PersistentVolumeClaim) {
	slices.SortStableFunc(claims, func(a, b *corev1.PersistentVolumeClaim) int {
		qa, qb := a.Spec.Resources.Requests[corev1.ResourceStorage], b.Spec.Resources.Requests[corev1.ResourceStorage]
		return qa.Cmp(qb)
	})
}

// DefaultBindTimeout is kube-scheduler's bindTimeoutSeconds default.
const DefaultBindTimeout = 600 * time.Second

// Args decodes VolumeBindingArgs with kube-scheduler's default
// and validation of bindTimeoutSeconds; the rest (scoring shape) is for
// the StorageCapacityScoring gate, off in 1.36.
var Args = framework.TypedArgs[configv1.VolumeBindingArgs](Name+"Args",
	func(a *configv1.VolumeBindingArgs) {
		if a.BindTimeoutSeconds == nil {
			a.BindTimeoutSeconds = new(int64(DefaultBindTimeout / time.Second))
		}
	},
	func(a *configv1.VolumeBindingArgs, _ string, bad func(field, format string, args ...any)) {
		if *a.BindTimeoutSeconds < 0 {
			bad("bindTimeoutSeconds", "invalid BindTimeoutSeconds, should not be a negative value")
		}
	})

// BindTimeout is the bindTimeoutSeconds of args, what Args returned.
func BindTimeout(args any) time.Duration {
	return time.Duration(*args.(*configv1.VolumeBindingArgs).BindTimeoutSeconds) * time.Second
}
