package cluster

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcehelper "k8s.io/component-helpers/resource"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// configSourceAnnotation is set by the kubelet on pods it read from a file or
// a URL (static pods); their API objects are mirrors that cannot be evicted.
const configSourceAnnotation = "kubernetes.io/config.source"

// The scheduler scores a container without a request as if it asked for
// this much, so that empty requests do not make every node look idle
// (kube-scheduler's DefaultMilliCPURequest and DefaultMemoryRequest).
var nonZeroDefaults = corev1.ResourceList{
	corev1.ResourceCPU:    resource.MustParse("100m"),
	corev1.ResourceMemory: resource.MustParse("200Mi"),
}

// Pod is a pod of the snapshot with the facts about it that every cycle
// needs, computed once at load.
type Pod struct {
	*corev1.Pod
	// Key is "namespace/name", the pod's identity in plans and reports.
	Key string
	// Requests is what the pod holds on the node it is bound to, as
	// kube-scheduler accounts a scheduled pod: the effective requests of its
	// containers, init and sidecar containers, pod-level resources and
	// overhead, read with the resources its status reports (see
	// heldRequestsOptions). While an in-place resize is pending or in progress
	// that is the larger of the spec, the allocated and the actual resources;
	// when the kubelet found the resize Infeasible, the allocated and actual
	// ones, for the node never granted the spec. Requests.Pods is 1.
	Requests Resources
	// NonZeroRequests is Requests with kube-scheduler's defaults for
	// containers that request no CPU or memory; scoring plugins use it.
	NonZeroRequests Resources
	// SpecRequests is what a pod with this spec asks for when it is
	// scheduled: kube-scheduler's filter reads a pod it places from its spec
	// alone, and a replacement is a new pod without status. It equals
	// Requests unless the pod's status reports other resources than its spec.
	SpecRequests Resources
	// SpecNonZeroRequests is SpecRequests with kube-scheduler's defaults,
	// as NonZeroRequests is for Requests.
	SpecNonZeroRequests Resources
	// Workload is the top controller the pod belongs to (a ReplicaSet's pods
	// belong to its Deployment); zero for a bare pod.
	Workload Workload
	// Priority is the pod's priority, 0 when unset.
	Priority int32
	// DeletionCost is the pod's controller.kubernetes.io/pod-deletion-cost,
	// read as the ReplicaSet controller reads it: 0 when unset or invalid.
	DeletionCost int32
	// QoS is the pod's quality-of-service class.
	QoS corev1.PodQOSClass
	// Usage is the pod's metrics.k8s.io sample, its containers added up;
	// nil without one.
	Usage *UsageSample

	// id indexes the snapshot's placement table.
	id int
	// specIDs: see SchedulingSpecID and PlacementSpecID.
	specIDs specIDPair
	// controller is the pod's controller reference, and the flags what
	// its metadata and volumes say, found once: strategies ask of every pod
	// they look at, and these answers then cost no read of the pod's
	// object.
	controller   *metav1.OwnerReference
	daemonSet    bool
	ofJob        bool
	terminating  bool
	localStorage bool
	claims       bool
	mirror       bool
	// restarts and initRestarts add up the restart counts of its
	// containers and of its init containers.
	restarts, initRestarts int32
}

func newPod(p *corev1.Pod, id int) *Pod {
	return newPodWith(p, id, nil)
}

// heldRequestsOptions are the options kube-scheduler 1.36 reads a
// scheduled pod's requests with (its NodeInfo): InPlacePodVerticalScaling is
// GA and InPlacePodLevelResourcesVerticalScaling beta, both on, so the
// status's container and pod-level resources count; DRANodeAllocatableResources
// is alpha and off.
func heldRequestsOptions(scratch corev1.ResourceList) resourcehelper.PodResourcesOptions {
	return resourcehelper.PodResourcesOptions{
		Reuse:              scratch,
		UseStatusResources: true,
		InPlacePodLevelResourcesVerticalScalingEnabled: true,
	}
}

// newPodWith computes a pod's facts using scratch, when given, to add up its
// requests, so that loading 150,000 pods does not allocate a ResourceList
// for each.
func newPodWith(p *corev1.Pod, id int, scratch corev1.ResourceList) *Pod {
	spec, specNonZero := requests(p, resourcehelper.PodResourcesOptions{Reuse: scratch}, nonZeroDefaults)
	held, heldNonZero := spec, specNonZero
	if hasStatusResources(p) {
		held, heldNonZero = requests(p, heldRequestsOptions(scratch), nonZeroDefaults)
	}
	controller := metav1.GetControllerOfNoCopy(p)
	return &Pod{
		Pod:                 p,
		Key:                 p.Namespace + "/" + p.Name,
		Requests:            held,
		NonZeroRequests:     heldNonZero,
		SpecRequests:        spec,
		SpecNonZeroRequests: specNonZero,
		Priority:            corev1helpers.PodPriority(p),
		DeletionCost:        deletionCost(p.Annotations),
		QoS:                 qosClass(p),
		id:                  id,
		controller:          controller,
		daemonSet:           controller != nil && controller.Kind == "DaemonSet",
		ofJob:               controller != nil && controller.Kind == "Job" && isBatchGroup(controller.APIVersion),
		terminating:         p.DeletionTimestamp != nil,
		localStorage:        slices.ContainsFunc(p.Spec.Volumes, keepsLocalData),
		claims:              slices.ContainsFunc(p.Spec.Volumes, usesClaim),
		mirror:              isMirror(p),
		restarts:            sumRestarts(p.Status.ContainerStatuses),
		initRestarts:        sumRestarts(p.Status.InitContainerStatuses),
	}
}

func sumRestarts(statuses []corev1.ContainerStatus) int32 {
	var n int32
	for i := range statuses {
		n += statuses[i].RestartCount
	}
	return n
}

// Restarts is how many times the pod's containers restarted, by their
// statuses, with its init containers' when withInit is set.
func (p *Pod) Restarts(withInit bool) int32 {
	if withInit {
		return p.restarts + p.initRestarts
	}
	return p.restarts
}

// requests returns the pod's requests under opts, and the same with
// nonMissing for the CPU and memory requests its containers leave out.
func requests(p *corev1.Pod, opts resourcehelper.PodResourcesOptions, nonMissing corev1.ResourceList) (req, nonZero Resources) {
	req = ResourcesFromList(resourcehelper.PodRequests(p, opts))
	req.Pods = 1
	nonZero = req
	if missesCPUOrMemoryRequest(p) {
		opts.NonMissingContainerRequests = nonMissing
		nonZero = ResourcesFromList(resourcehelper.PodRequests(p, opts))
		nonZero.Pods = 1
	}
	return req, nonZero
}

// hasStatusResources reports whether the kubelet reported a container's or
// the pod's resources in its status: only then can what the pod holds differ
// from its spec (the helper reads a container's allocated resources only
// beside its reported ones).
func hasStatusResources(p *corev1.Pod) bool {
	if p.Status.Resources != nil {
		return true
	}
	for _, list := range [][]corev1.ContainerStatus{p.Status.ContainerStatuses, p.Status.InitContainerStatuses} {
		for i := range list {
			if list[i].Resources != nil {
				return true
			}
		}
	}
	return false
}

// missesCPUOrMemoryRequest reports whether the scheduler's defaults would
// change the pod's requests: some container leaves out CPU or memory, and no
// pod-level request replaces the containers' sum.
func missesCPUOrMemoryRequest(p *corev1.Pod) bool {
	if resourcehelper.IsPodLevelRequestsSet(p) {
		if r := p.Spec.Resources.Requests; r != nil {
			_, cpu := r[corev1.ResourceCPU]
			_, mem := r[corev1.ResourceMemory]
			if cpu && mem {
				return false
			}
		}
	}
	for _, list := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range list {
			r := list[i].Resources.Requests
			_, cpu := r[corev1.ResourceCPU]
			_, mem := r[corev1.ResourceMemory]
			if !cpu || !mem {
				return true
			}
		}
	}
	return false
}

// ContainerNonZeroRequests is SpecNonZeroRequests counted from the
// containers alone, pod-level requests ignored: what kube-scheduler 1.36's
// NodeResourcesFit score counts for the pod it places (its filter and
// BalancedAllocation do count pod-level requests).
func (p *Pod) ContainerNonZeroRequests() Resources {
	if !resourcehelper.IsPodLevelRequestsSet(p.Pod) {
		return p.SpecNonZeroRequests
	}
	r := ResourcesFromList(resourcehelper.PodRequests(p.Pod, resourcehelper.PodResourcesOptions{
		SkipPodLevelResources: true, NonMissingContainerRequests: nonZeroDefaults,
	}))
	r.Pods = 1
	return r
}

// Controller returns the pod's controlling owner reference, or nil.
func (p *Pod) Controller() *metav1.OwnerReference {
	return p.controller
}

// IsMirror reports whether the pod is the API mirror of a static pod, which
// the kubelet owns and the Eviction API cannot remove.
func (p *Pod) IsMirror() bool { return p.mirror }

func isMirror(p *corev1.Pod) bool {
	if _, ok := p.Annotations[corev1.MirrorPodAnnotationKey]; ok {
		return true
	}
	src, ok := p.Annotations[configSourceAnnotation]
	return ok && src != "api"
}

// IsDaemonSetPod reports whether a DaemonSet controls the pod; such a pod
// would be recreated on the same node, so moving it is never possible.
func (p *Pod) IsDaemonSetPod() bool {
	return p.daemonSet
}

// IsTerminating reports whether the pod is already being deleted.
func (p *Pod) IsTerminating() bool {
	return p.terminating
}

// UnschedulableSince reports whether kube-scheduler tried the pod and
// found no node for it (condition PodScheduled False, reason
// Unschedulable), and since when: the condition's lastTransitionTime,
// zero when it has none.
func (p *Pod) UnschedulableSince() (time.Time, bool) {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return c.LastTransitionTime.Time, c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable
		}
	}
	return time.Time{}, false
}

// IsTerminal reports whether the pod has finished: it no longer holds
// resources on its node.
func (p *Pod) IsTerminal() bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// HasLocalStorage reports whether the pod keeps data on its node (an emptyDir
// or hostPath volume) that an eviction would lose.
func (p *Pod) HasLocalStorage() bool { return p.localStorage }

func keepsLocalData(v corev1.Volume) bool { return v.EmptyDir != nil || v.HostPath != nil }

// HasPVC reports whether the pod mounts a PersistentVolumeClaim, including
// one created from an ephemeral volume template.
func (p *Pod) HasPVC() bool { return p.claims }

func usesClaim(v corev1.Volume) bool { return v.PersistentVolumeClaim != nil || v.Ephemeral != nil }

// HasAffinity reports whether the pod has any inter-pod affinity or
// anti-affinity term, required or preferred.
func (p *Pod) HasAffinity() bool {
	a := p.Spec.Affinity
	return a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil)
}

// HasRequiredAntiAffinity reports whether the pod has a required
// anti-affinity term, which constrains where other pods may go.
func (p *Pod) HasRequiredAntiAffinity() bool {
	a := p.Spec.Affinity
	return a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0
}

// qosClass returns the class the API server recorded in status, or derives
// it by the Kubernetes rule for objects written by hand without a status.
func qosClass(p *corev1.Pod) corev1.PodQOSClass {
	if p.Status.QOSClass != "" {
		return p.Status.QOSClass
	}
	// Pod-level resources, when set, decide the class on their own.
	var sets []corev1.ResourceRequirements
	if r := p.Spec.Resources; r != nil && (len(r.Requests) > 0 || len(r.Limits) > 0) {
		sets = append(sets, *r)
	} else {
		for _, c := range p.Spec.InitContainers {
			sets = append(sets, c.Resources)
		}
		for _, c := range p.Spec.Containers {
			sets = append(sets, c.Resources)
		}
	}
	requested, limited, guaranteed := false, false, true
	for _, rr := range sets {
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			req, hasReq := rr.Requests[name]
			lim, hasLim := rr.Limits[name]
			requested = requested || (hasReq && !req.IsZero())
			limited = limited || (hasLim && !lim.IsZero())
			if !hasLim || (hasReq && req.Cmp(lim) != 0) {
				guaranteed = false
			}
		}
	}
	switch {
	case !requested && !limited:
		return corev1.PodQOSBestEffort
	case guaranteed:
		return corev1.PodQOSGuaranteed
	default:
		return corev1.PodQOSBurstable
	}
}
