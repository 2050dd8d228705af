// Package volumebinding is kube-scheduler's VolumeBinding plugin: its
// filter, and the volumes its PreBind binds or provisions before the pod
// (Volumes).
package volumebinding

import (
	"encoding/json"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/component-helpers/storage/ephemeral"
	storagehelpers "k8s.io/component-helpers/storage/volume"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// Name is the plugin's name in a profile.
const Name = "VolumeBinding"

// kube-scheduler's VolumeBinding reasons, in the order it reports them.
const (
	ErrReasonNodeConflict = "node(s) didn't match PersistentVolume's node affinity"
	ErrReasonBindConflict = "node(s) didn't find available persistent volumes to bind"
	ErrReasonPVNotExist   = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
	// ErrReasonUnboundImmediate rejects a pod whose claim the PV controller
	// has yet to bind (or a claim pre-bound to a volume the controller has
	// not bound back).
	ErrReasonUnboundImmediate = "pod has unbound immediate PersistentVolumeClaims"
)

// notSupportedProvisioner is the provisioner of classes that provision
// nothing, such as those of local volumes.
const notSupportedProvisioner = "kubernetes.io/no-provisioner"

// Bits of a node's VolumeBinding verdict, one a reason.
const (
	bindNodeConflict uint8 = 1 << iota
	bindBindConflict
	bindPVNotExist
)

// bindingReasons holds the reason lists for each combination of bits.
var bindingReasons = func() [8][]string {
	var out [8][]string
	for bits := range out {
		var r []string
		if bits&int(bindNodeConflict) != 0 {
			r = append(r, ErrReasonNodeConflict)
		}
		if bits&int(bindBindConflict) != 0 {
			r = append(r, ErrReasonBindConflict)
		}
		if bits&int(bindPVNotExist) != 0 {
			r = append(r, ErrReasonPVNotExist)
		}
		out[bits] = r
	}
	return out
}()

// volumeBinding keeps a pod off nodes where its claims' volumes cannot be
// used: a bound volume's node affinity, and for a WaitForFirstConsumer
// claim not bound yet an available volume that the node can use, or a
// class that can provision one in the node's topology. It does not know
// CSIStorageCapacity (storage that runs out), and it does not score: that
// takes the StorageCapacityScoring gate, off in kube-scheduler 1.36.
type volumeBinding struct {
	key framework.StateKey
}

var (
	_ framework.FilterPlugin       = (*volumeBinding)(nil)
	_ framework.ScorePlugin        = (*volumeBinding)(nil)
	_ framework.UnresolvableFilter = (*volumeBinding)(nil)
)

func New(_ any, h framework.Handle) (framework.Plugin, error) {
	return &volumeBinding{key: h.StateKey()}, nil
}

// familyState keeps, for a snapshot family, the nodes each volume node
// affinity selects.
type familyState struct {
	selections framework.Memo[string, []bool]
}

// bindingState is each node's verdict, computed in PreFilter: what decides
// it depends only on the node's name and labels.
type bindingState struct {
	verdict []uint8
	claims  podClaims
}

func (s *bindingState) Reset() {
	s.verdict = s.verdict[:0]
	s.claims.reset()
}

// podClaims are a pod's claims sorted as kube-scheduler's GetPodVolumes
// sorts them: bound by the PV controller, unbound and waiting for their
// first consumer, and whether any is unbound otherwise (an Immediate claim,
// or one prebound to a volume the controller has not bound back).
type podClaims struct {
	all, bound, unbound []*corev1.PersistentVolumeClaim
	immediate           bool
}

func (pc *podClaims) reset() {
	clear(pc.all)
	pc.all = pc.all[:0]
	clear(pc.bound)
	pc.bound = pc.bound[:0]
	clear(pc.unbound)
	pc.unbound = pc.unbound[:0]
	pc.immediate = false
}

// collect sorts the pod's claims, or returns kube-scheduler's message for
// the first claim the pod cannot use. Every claim must be usable before
// any is looked at for binding.
func (pc *podClaims) collect(snap *cluster.Snapshot, pod *corev1.Pod) string {
	for i := range pod.Spec.Volumes {
		claim, msg := claimOf(snap, pod, &pod.Spec.Volumes[i])
		if msg != "" {
			return msg
		}
		if claim != nil {
			pc.all = append(pc.all, claim)
		}
	}
	for _, claim := range pc.all {
		if cluster.ClaimFullyBound(claim) {
			pc.bound = append(pc.bound, claim)
			continue
		}
		delay, msg := delayBinding(snap, claim)
		if msg != "" {
			return msg
		}
		if delay && claim.Spec.VolumeName == "" {
			pc.unbound = append(pc.unbound, claim)
		} else {
			pc.immediate = true
		}
	}
	return ""
}

func (*volumeBinding) Name() string { return Name }

// claimOf looks up the claim of a pod's volume as kube-scheduler does, and
// returns kube-scheduler's message when the pod cannot use it.
func claimOf(snap *cluster.Snapshot, pod *corev1.Pod, vol *corev1.Volume) (*corev1.PersistentVolumeClaim, string) {
	name := cluster.ClaimName(pod, vol)
	if name == "" {
		return nil, ""
	}
	claim := snap.Claim(pod.Namespace, name)
	switch {
	case claim == nil && vol.Ephemeral != nil:
		return nil, fmt.Sprintf("waiting for ephemeral volume controller to create the persistentvolumeclaim %q", name)
	case claim == nil:
		return nil, framework.ClaimNotFound(name)
	case claim.Status.Phase == corev1.ClaimLost:
		return nil, fmt.Sprintf("persistentvolumeclaim %q bound to non-existent persistentvolume %q", name, claim.Spec.VolumeName)
	case claim.DeletionTimestamp != nil:
		return nil, fmt.Sprintf("persistentvolumeclaim %q is being deleted", name)
	}
	if vol.Ephemeral != nil {
		if err := ephemeral.VolumeIsForPod(pod, claim); err != nil {
			return nil, err.Error()
		}
	}
	return claim, ""
}

func (p *volumeBinding) PreFilter(c *framework.Cycle) framework.PreFilterResult {
	snap := c.Snapshot()
	if !snap.VolumesKnown() || !cluster.UsesClaims(c.Pod().Pod) {
		return framework.PreFilterResult{Skip: true}
	}
	st := framework.State[bindingState](c, p.key)
	if msg := st.claims.collect(snap, c.Pod().Pod); msg != "" {
		return framework.PreFilterResult{Reject: msg}
	}
	if st.claims.immediate {
		return framework.PreFilterResult{Reject: ErrReasonUnboundImmediate}
	}

	n := len(c.Nodes())
	st.verdict = slices.Grow(st.verdict[:0], n)[:n]
	clear(st.verdict)
	// A bound claim's volume: the first that is missing or that a node's
	// labels do not match decides, as kube-scheduler checks them in order.
	var selections [][]bool
	var missing bool
	for _, claim := range st.claims.bound {
		pv := snap.PersistentVolume(claim.Spec.VolumeName)
		if pv == nil {
			missing = true
			break
		}
		selections = append(selections, p.volumeAffinitySelection(c, pv))
	}
	for i := range c.Nodes() {
		for _, sel := range selections {
			if sel != nil && !sel[i] {
				st.verdict[i] = bindNodeConflict
				break
			}
		}
		if st.verdict[i] == 0 && missing {
			st.verdict[i] = bindPVNotExist
		}
	}
	if unbound := st.claims.unbound; len(unbound) > 0 {
		sortBySize(unbound)
		for i, n := range c.Nodes() {
			if !unboundClaimsFit(snap, unbound, n.Node) {
				st.verdict[i] |= bindBindConflict
			}
		}
	}
	return framework.PreFilterResult{}
}

// delayBinding reports whether the claim's class binds it when a pod is
// scheduled (WaitForFirstConsumer); a class that is not there binds at
// once, as kube-scheduler takes it.
func delayBinding(snap *cluster.Snapshot, claim *corev1.PersistentVolumeClaim) (bool, string) {
	name := cluster.ClaimClass(claim)
	if name == "" {
		return false, ""
	}
	class := snap.StorageClass(name)
	if class == nil {
		return false, ""
	}
	if class.VolumeBindingMode == nil {
		return false, fmt.Sprintf("VolumeBindingMode not set for StorageClass %q", name)
	}
	return *class.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer, ""
}

// unboundClaimsFit is kube-scheduler's check of a pod's unbound
// WaitForFirstConsumer claims on one node.
func unboundClaimsFit(snap *cluster.Snapshot, claims []*corev1.PersistentVolumeClaim, node *corev1.Node) bool {
	_, _, ok := matchUnboundClaims(snap, claims, node)
	return ok
}

// matchUnboundClaims matches a pod's unbound WaitForFirstConsumer claims,
// sorted smallest first, on one node: a claim for which a node was already
// selected must be provisioned there; the others take, in order, an
// available volume of their class that the node can use, and the rest must
// be provisionable by their class in the node's topology. It returns the
// volumes chosen and the claims to provision, or false when the node
// cannot take the claims.
func matchUnboundClaims(snap *cluster.Snapshot, claims []*corev1.PersistentVolumeClaim, node *corev1.Node) (bindings []ClaimBinding, provision []*corev1.PersistentVolumeClaim, ok bool) {
	var chosen map[string]*corev1.PersistentVolume
	for _, claim := range claims {
		if selected, ok := claim.Annotations[cluster.AnnSelectedNode]; ok {
			if selected != node.Name {
				return nil, nil, false
			}
			provision = append(provision, claim)
		}
	}
	for _, claim := range claims {
		if _, ok := claim.Annotations[cluster.AnnSelectedNode]; ok {
			continue
		}
		pvs := snap.PersistentVolumesOfClass(cluster.ClaimClass(claim))
		// The VolumeAttributesClass gate is on (GA) in 1.36.
		pv, err := storagehelpers.FindMatchingVolume(claim, pvs, node, chosen, true, true)
		if err != nil {
			return nil, nil, false
		}
		if pv == nil {
			provision = append(provision, claim)
			continue
		}
		if chosen == nil {
			chosen = make(map[string]*corev1.PersistentVolume)
		}
		chosen[pv.Name] = pv
		bindings = append(bindings, ClaimBinding{Claim: claim, Volume: pv})
	}
	for _, claim := range provision {
		class := snap.StorageClass(cluster.ClaimClass(claim))
		if class == nil || class.Provisioner == "" || class.Provisioner == notSupportedProvisioner {
			return nil, nil, false
		}
		if !matchTopologySelectorTerms(class.AllowedTopologies, node.Labels) {
			return nil, nil, false
		}
	}
	return bindings, provision, true
}

// matchTopologySelectorTerms is a class's allowedTopologies against a
// node's labels: no term allows every node, else one term must match, each
// of its requirements by one of its values.
func matchTopologySelectorTerms(terms []corev1.TopologySelectorTerm, nodeLabels labels.Set) bool {
	if len(terms) == 0 {
		return true
	}
	for _, t := range terms {
		ok := true
		for _, req := range t.MatchLabelExpressions {
			v, has := nodeLabels[req.Key]
			if !has || !slices.Contains(req.Values, v) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// volumeAffinitySelection returns, per node, whether it matches the
// volume's required node affinity, or nil when the volume has none. It is
// kept for the snapshot family by the affinity's terms, which local
// volumes of one node and disks of one zone share.
func (p *volumeBinding) volumeAffinitySelection(c *framework.Cycle, pv *corev1.PersistentVolume) []bool {
	if pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
		return nil
	}
	js, _ := json.Marshal(pv.Spec.NodeAffinity.Required)
	return framework.FamilyState[familyState](c, p.key).selections.Get(string(js), func() []bool {
		sel := nodeaffinity.NewLazyErrorNodeSelector(pv.Spec.NodeAffinity.Required)
		match := make([]bool, len(c.Nodes()))
		for i, n := range c.Nodes() {
			match[i], _ = sel.Match(n.Node)
		}
		return match
	})
}

func (p *volumeBinding) Filter(c *framework.Cycle, i int) []string {
	return bindingReasons[framework.State[bindingState](c, p.key).verdict[i]]
}

// Score is skipped: kube-scheduler scores volumes only with the
// StorageCapacityScoring gate, alpha and off.
func (*volumeBinding) Score(*framework.Cycle, []int32, []int64) bool { return false }

// Unresolvable: kube-scheduler's VolumeBinding rejects with
// UnschedulableAndUnresolvable only: volumes, not pods, decide.
func (p *volumeBinding) Unresolvable(*framework.Cycle, int, []string) bool { return true }
