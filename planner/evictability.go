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

// DeschedulerEvictAnnotation is the descheduler's opt-in: with any value,
// even "false", it lets the pod past the soft protections, as in the
// descheduler, so that pods annotated for it move the same way here.
// rebalancer.dev/evict: "false" still opts the pod out, and the hard
// protections (static, DaemonSet and terminating pods), the limits and
// PodDisruptionBudgets hold whatever it says.
const DeschedulerEvictAnnotation = "descheduler.alpha.kubernetes.io/evict"

// systemClusterCritical is the PriorityClass whose value is the default
// threshold of protected priorities.
const systemClusterCritical = "system-cluster-critical"

// protection returns why the pod may not be evicted by policy, or "": ev
// are the evictable settings of the strategy that would move it.
func protection(snap *cluster.Snapshot, pol *policy.Policy, ev *policy.Evictable, p *cluster.Pod) (Category, string) {
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
	if why := gangProtection(p); why != "" {
		return Protected, why
	}
	if !pol.AllowsNamespace(p.Namespace) {
		return Excluded, fmt.Sprintf("namespace %s is excluded by the policy", p.Namespace)
	}
	// Like the namespaces setting, and as the descheduler's
	// namespaceLabelSelector, the selector chooses where rebalancer works at
	// all: a pod's own annotation does not take it past.
	if !ev.SelectsNamespace(snap.NamespaceLabels(p.Namespace)) {
		return Excluded, fmt.Sprintf("namespace %s is not selected by evictable.namespaceSelector", p.Namespace)
	}
	switch p.Annotations[EvictAnnotation] {
	case "false":
		return OptedOut, fmt.Sprintf("opted out with %s: \"false\"", EvictAnnotation)
	case "true":
		return "", ""
	}
	if _, ok := p.Annotations[DeschedulerEvictAnnotation]; ok {
		return "", ""
	}
	if !ev.Matches(p.Labels) {
		return Protected, "not selected by evictable.labelSelector"
	}
	if !*ev.DoNotDisruptPods {
		if why := autoscalerProtection(p, snap.Now); why != "" {
			return Protected, why
		}
	}
	if !*ev.SystemCritical {
		threshold, class, known := priorityThreshold(snap, ev)
		if !known {
			// The commands refuse such a policy; a program that plans with
			// it anyway must not move what the policy meant to protect.
			return Protected, fmt.Sprintf("evictable.priorityThreshold.name names PriorityClass %s, which the cluster does not have", class)
		}
		if p.Priority >= threshold {
			from := "evictable.priorityThreshold.value"
			if class != "" {
				from = "PriorityClass " + class
			}
			return Protected, fmt.Sprintf("priority %d is at or above the protected threshold %d (%s)", p.Priority, threshold, from)
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
	if !*ev.ResourceClaims && len(p.Spec.ResourceClaims) > 0 {
		return Protected, "uses dynamic resource allocation (spec.resourceClaims), whose devices the plan does not simulate: " +
			"no node can be known to take it; allow with evictable.resourceClaims"
	}
	var fewer string
	if min := *ev.MinReplicas; min > 1 {
		why, few := replicasProtection(snap, p, min)
		if why != "" && (!few || !*ev.MakeBeforeBreak) {
			return Protected, why
		}
		fewer = why
	}
	if *ev.RequirePDB && len(snap.PDBsFor(p)) == 0 {
		return Protected, "no PodDisruptionBudget covers it, and evictable.requirePDB moves only pods that one covers; " +
			"add a PodDisruptionBudget that selects it, or allow with evictable.requirePDB: false"
	}
	if min := ev.MinPodAge.Duration; min > 0 {
		// Only a dump can lack the time (the API server always sets it): a
		// pod of unknown age is not known to be old enough.
		if p.CreationTimestamp.IsZero() {
			return Protected, "its age is unknown (metadata.creationTimestamp is not set), so evictable.minPodAge cannot be checked"
		}
		if age := snap.Now.Sub(p.CreationTimestamp.Time); age < min {
			return Protected, fmt.Sprintf("younger than evictable.minPodAge (%s < %s)", age.Round(time.Second), min)
		}
	}
	if fewer != "" {
		return surgeOnly, fewer
	}
	return "", ""
}

// priorityThreshold returns the priority at and above which pods are
// protected and the PriorityClass it is the value of ("" for a value the
// policy gives); known is false when the policy names a class the snapshot
// does not hold. It is asked for every pod a strategy looks at: nothing is
// formatted here.
func priorityThreshold(snap *cluster.Snapshot, ev *policy.Evictable) (threshold int32, class string, known bool) {
	name := systemClusterCritical
	if t := ev.PriorityThreshold; t != nil {
		if t.Value != nil {
			return *t.Value, "", true
		}
		name = t.Name
	}
	v, ok := snap.PriorityClassValue(name)
	return v, name, ok
}

// autoscalerProtection returns why an autoscaler's annotation keeps the pod
// in place, or "". The values are compared as the autoscalers compare them.
func autoscalerProtection(p *cluster.Pod, now time.Time) string {
	if p.Annotations[cluster.SafeToEvictAnnotation] == "false" {
		return fmt.Sprintf("annotated %s: \"false\" for the cluster autoscaler; allow with evictable.doNotDisruptPods", cluster.SafeToEvictAnnotation)
	}
	value, ok := p.Annotations[cluster.DoNotDisruptAnnotation]
	if !ok {
		return ""
	}
	if value == "true" {
		return fmt.Sprintf("annotated %s: \"true\" for Karpenter; allow with evictable.doNotDisruptPods", cluster.DoNotDisruptAnnotation)
	}
	// As Karpenter reads it: a positive duration protects the pod for that
	// long from its start (for ever while it has not started), and any
	// other value protects nothing.
	d, err := time.ParseDuration(value)
	if err != nil || d <= 0 {
		return ""
	}
	if p.Status.StartTime == nil {
		return fmt.Sprintf("annotated %s: %q for Karpenter, which protects it for %s from its start, and it has not started; allow with evictable.doNotDisruptPods",
			cluster.DoNotDisruptAnnotation, value, d)
	}
	until := p.Status.StartTime.Add(d)
	if !now.Before(until) {
		return ""
	}
	return fmt.Sprintf("annotated %s: %q for Karpenter, which protects it until %s (%s after it started); allow with evictable.doNotDisruptPods",
		cluster.DoNotDisruptAnnotation, value, until.UTC().Format(time.RFC3339), d)
}

// The labels and annotation by which the coscheduling plugin of
// scheduler-plugins (today's and its older name) and Volcano put a pod in a
// PodGroup.
const (
	podGroupLabel          = "scheduling.x-k8s.io/pod-group"
	podGroupLabelOld       = "pod-group.scheduling.sigs.k8s.io"
	volcanoGroupAnnotation = "scheduling.k8s.io/group-name"
)

// gangProtection returns why the pod, one of a group scheduled together,
// must not be evicted alone, or "". Such a group is placed all at once or
// not at all, so a replacement of one pod waits for a group that is
// already running, and evicting one pod of a gang often fails the job
// the group runs.
func gangProtection(p *cluster.Pod) string {
	if g := p.Spec.SchedulingGroup; g != nil && g.PodGroupName != nil {
		return fmt.Sprintf("member of PodGroup %s (spec.schedulingGroup), whose pods are scheduled together: a pod of a group is never evicted alone", *g.PodGroupName)
	}
	for _, key := range []string{podGroupLabel, podGroupLabelOld} {
		if name, ok := p.Labels[key]; ok && name != "" {
			return fmt.Sprintf("member of PodGroup %s (label %s), whose pods are scheduled together: a pod of a group is never evicted alone", name, key)
		}
	}
	if name, ok := p.Annotations[volcanoGroupAnnotation]; ok && name != "" {
		return fmt.Sprintf("member of PodGroup %s (annotation %s), whose pods are scheduled together: a pod of a group is never evicted alone", name, volcanoGroupAnnotation)
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

// replicasProtection returns why evictable.minReplicas keeps the pod in
// place, or "". The count is the controller's spec, what the workload is
// meant to have, not the pods it has now. A pod whose count the snapshot
// cannot tell (an owner it does not hold, a kind whose replicas it does not
// read) stays: minReplicas exists to keep the small workloads whole, and
// this one may be small. A bare pod is barePods' to decide, and a finished
// pod serves nothing, so evicting it leaves the workload no smaller.
func replicasProtection(snap *cluster.Snapshot, p *cluster.Pod, min int32) (why string, fewer bool) {
	if p.IsTerminal() {
		return "", false
	}
	r := snap.ReplicasOf(p)
	of := r.Owner
	if w := p.Workload.String(); w != "" && w != of {
		of += " (of " + w + ")"
	}
	switch {
	case r.Owner == "":
		return "", false
	case !r.Counted:
		return fmt.Sprintf("pod of %s, whose replica count rebalancer does not read (it reads ReplicaSets, StatefulSets and Jobs): "+
			"evictable.minReplicas (%d) keeps it; allow with a lower evictable.minReplicas for its namespace", of, min), false
	case !r.Found:
		return fmt.Sprintf("pod of %s, which the snapshot does not hold: its replica count is unknown, so evictable.minReplicas (%d) keeps it; "+
			"allow with a lower evictable.minReplicas for its namespace", of, min), false
	case r.Count < min:
		return fmt.Sprintf("%s asks for %d %s, fewer than evictable.minReplicas (%d); allow with a lower evictable.minReplicas",
			of, r.Count, plural(r.Count, "replica", "replicas"), min), true
	}
	return "", false
}

func plural(n int32, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
