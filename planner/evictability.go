package planner

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
)

// EvictAnnotation lets a pod opt in ("true") past the soft protections, never
// past a PodDisruptionBudget or a limit, or opt out ("false") of every
// eviction.
const EvictAnnotation = "rebalancer.dev/evict"

// The annotations by which the cluster autoscaler and Karpenter are told to
// leave a pod in place: rebalancer, which works to the same end when it
// empties nodes for them, honours them too.
const (
	safeToEvictAnnotation  = "cluster-autoscaler.kubernetes.io/safe-to-evict"
	doNotDisruptAnnotation = "karpenter.sh/do-not-disrupt"
)

// systemClusterCritical is the PriorityClass whose value is the default
// threshold of protected priorities.
const systemClusterCritical = "system-cluster-critical"

// protection returns why the pod may not be evicted by policy, or "".
func protection(snap *cluster.Snapshot, pol *policy.Policy, s *policy.Settings, p *cluster.Pod) (Category, string) {
	// Never, whatever the policy says: the kubelet owns static pods, a
	// DaemonSet recreates its pod on the same node, and a terminating pod is
	// already leaving.
	switch {
	case p.IsMirror():
		return Protected, "static pod (mirror): the kubelet owns it"
	case p.IsDaemonSetPod():
		return Protected, "DaemonSet pod: it would come back on the same node"
	case p.IsTerminating():
		return Protected, "already terminating"
	}
	if !pol.AllowsNamespace(p.Namespace) {
		return Excluded, fmt.Sprintf("namespace %s is excluded by the policy", p.Namespace)
	}
	switch p.Annotations[EvictAnnotation] {
	case "false":
		return OptedOut, fmt.Sprintf("opted out with %s: \"false\"", EvictAnnotation)
	case "true":
		return "", ""
	}
	ev := &s.Evictable
	if !ev.Matches(p.Labels) {
		return Protected, "not selected by evictable.labelSelector"
	}
	if !*ev.DoNotDisruptPods {
		if why := autoscalerProtection(p); why != "" {
			return Protected, why
		}
	}
	if !*ev.SystemCritical {
		threshold, name, known := priorityThreshold(snap, ev)
		if !known {
			// The commands refuse such a policy; a program that plans with
			// it anyway must not move what the policy meant to protect.
			return Protected, fmt.Sprintf("evictable.priorityThreshold.name names %s, which the cluster does not have", name)
		}
		if p.Priority >= threshold {
			return Protected, fmt.Sprintf("priority %d is at or above the protected threshold %d (%s)", p.Priority, threshold, name)
		}
	}
	if !*ev.LocalStorage && p.HasLocalStorage() {
		return Protected, "uses local storage (emptyDir or hostPath), which eviction would lose; allow with evictable.localStorage"
	}
	if !*ev.PVC && p.HasPVC() {
		return Protected, "uses a PersistentVolumeClaim; allow with evictable.pvc"
	}
	if len(ev.PVCStorageClasses) > 0 && p.HasPVC() {
		if why := claimClassProtection(snap, ev.PVCStorageClasses, p); why != "" {
			return Protected, why
		}
	}
	if !*ev.BarePods && p.Controller() == nil {
		return Protected, "bare pod: no controller would recreate it; allow with evictable.barePods"
	}
	if !*ev.JobPods {
		if why := jobProtection(snap, p); why != "" {
			return Protected, why
		}
	}
	if min := ev.MinPodAge.Duration; min > 0 {
		if age := snap.Now.Sub(p.CreationTimestamp.Time); age < min {
			return Protected, fmt.Sprintf("younger than evictable.minPodAge (%s < %s)", age.Round(time.Second), min)
		}
	}
	return "", ""
}

// priorityThreshold returns the priority at and above which pods are
// protected and where it comes from; known is false when the policy names a
// class the snapshot does not hold.
func priorityThreshold(snap *cluster.Snapshot, ev *policy.Evictable) (threshold int32, from string, known bool) {
	name := systemClusterCritical
	if t := ev.PriorityThreshold; t != nil {
		if t.Value != nil {
			return *t.Value, "evictable.priorityThreshold.value", true
		}
		name = t.Name
	}
	v, ok := snap.PriorityClassValue(name)
	return v, "PriorityClass " + name, ok
}

// autoscalerProtection returns why an autoscaler's annotation keeps the pod
// in place, or "". The values are compared as the autoscalers compare them.
func autoscalerProtection(p *cluster.Pod) string {
	if p.Annotations[safeToEvictAnnotation] == "false" {
		return fmt.Sprintf("annotated %s: \"false\" for the cluster autoscaler; allow with evictable.doNotDisruptPods", safeToEvictAnnotation)
	}
	if p.Annotations[doNotDisruptAnnotation] == "true" {
		return fmt.Sprintf("annotated %s: \"true\" for Karpenter; allow with evictable.doNotDisruptPods", doNotDisruptAnnotation)
	}
	return ""
}

// jobProtection returns why the pod, one of a Job's, must not be evicted, or
// "". The Job controller counts an unfinished pod that is deleted as a
// failed attempt against backoffLimit, and its work is lost, unless the
// Job's podFailurePolicy ignores disruptions. A finished pod has been
// counted already.
func jobProtection(snap *cluster.Snapshot, p *cluster.Pod) string {
	job, owned := snap.JobOf(p)
	if !owned || p.IsTerminal() {
		return ""
	}
	name := p.Namespace + "/" + p.Controller().Name
	switch {
	case job == nil:
		return fmt.Sprintf("pod of Job %s, which the snapshot does not hold: evicting it may count as a failed attempt against the Job's backoffLimit and lose its work; allow with evictable.jobPods", name)
	case cluster.JobIgnoresDisruptions(job):
		return ""
	}
	of := ""
	if c := metav1.GetControllerOfNoCopy(job); c != nil && c.Kind == "CronJob" {
		of = fmt.Sprintf(" (of CronJob %s/%s)", job.Namespace, c.Name)
	}
	return fmt.Sprintf("pod of Job %s%s: evicting it counts as a failed attempt against the Job's backoffLimit and loses its work; "+
		"allow with evictable.jobPods, or give the Job a podFailurePolicy that ignores DisruptionTarget", name, of)
}
