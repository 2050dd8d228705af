package scheduler

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
	return fmt.Sprintf("running PreBind plugin %q: %v", VolumeBinding, err)
}

// Empty reports that there is nothing to bind before the pod.
func (v PodVolumes) Empty() bool { return len(v.Bindings) == 0 && len(v.Provisions) == 0 }

// PodVolumes returns what binding the pod's unbound WaitForFirstConsumer
// claims on node takes; nothing when every claim is bound already or the
// profile does not run VolumeBinding's PreBind. The objects returned are
// new: the snapshot's are not changed.
//
// It fails when the node can no longer take the claims, which a node the
// engine just chose on the same snapshot always can.
func (e *Engine) PodVolumes(snap *cluster.Snapshot, pod *cluster.Pod, node string) (PodVolumes, error) {
	out := PodVolumes{Node: node, Timeout: e.preBind.timeout}
	if !e.preBind.volumes || !snap.VolumesKnown() || !cluster.UsesClaims(pod.Pod) {
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

// preBindSettings are what PodVolumes reads of the profile, read once when
// the engine is built: whether VolumeBinding runs at PreBind, and its
// bindTimeoutSeconds.
type preBindSettings struct {
	volumes bool
	timeout time.Duration
}

func (e *Engine) readPreBindSettings() {
	e.preBind = preBindSettings{
		volumes: slices.Contains(e.pointPlugins(PointPreBind), VolumeBinding),
		timeout: e.volumeBindTimeout(),
	}
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

// defaultBindTimeout is kube-scheduler's bindTimeoutSeconds default.
const defaultBindTimeout = 600 * time.Second

// volumeBindingArgs decodes VolumeBindingArgs with kube-scheduler's default
// and validation of bindTimeoutSeconds; the rest (scoring shape) is for
// the StorageCapacityScoring gate, off in 1.36.
var volumeBindingArgs = typedArgs[configv1.VolumeBindingArgs](VolumeBinding+"Args",
	func(a *configv1.VolumeBindingArgs) {
		if a.BindTimeoutSeconds == nil {
			a.BindTimeoutSeconds = new(int64(defaultBindTimeout / time.Second))
		}
	},
	func(a *configv1.VolumeBindingArgs, _ string, bad func(field, format string, args ...any)) {
		if *a.BindTimeoutSeconds < 0 {
			bad("bindTimeoutSeconds", "invalid BindTimeoutSeconds, should not be a negative value")
		}
	})

// volumeBindTimeout is the profile's bindTimeoutSeconds. The profile was
// validated when the engine was built, so its args decode.
func (e *Engine) volumeBindTimeout() time.Duration {
	a, err := volumeBindingArgs(e.profile.rawArgs(VolumeBinding), "pluginConfig")
	if err != nil {
		return defaultBindTimeout
	}
	return time.Duration(*a.(*configv1.VolumeBindingArgs).BindTimeoutSeconds) * time.Second
}
