package cluster

import (
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DumpCommand is the kubectl command that dumps everything a plan reads.
const DumpCommand = "kubectl get nodes,pods,pdb,namespaces,deployments,replicasets,statefulsets,jobs,priorityclasses,configmaps,pv,pvc,storageclasses,csinodes -A -o yaml"

// DumpNeeds are what a policy reads from the kinds a dump may leave out; the
// objects themselves show the rest.
type DumpNeeds struct {
	// NamespaceSelectors is true when the policy chooses namespaces, or
	// their settings, by the labels of namespaces.
	NamespaceSelectors bool
	// PriorityClasses are the classes the policy names.
	PriorityClasses []string
	// Jobs is true when the policy keeps the pods of some Jobs in place,
	// which it decides by each Job's podFailurePolicy.
	Jobs bool
	// Replicas is true when the policy keeps the pods of small workloads in
	// place (evictable.minReplicas), which it decides by their controllers'
	// spec.replicas.
	Replicas bool
	// RequirePDB is true when the policy moves only the pods that a
	// PodDisruptionBudget covers (evictable.requirePDB).
	RequirePDB bool
	// ImplicitBudgets is true when a workload that no budget covers keeps
	// to its own maxUnavailable (implicitBudgets), which a Deployment
	// states.
	ImplicitBudgets bool
	// Autoscalers is true when the policy may move a pod by surge
	// (evictable.makeBeforeBreak), which it never does to a Deployment a
	// HorizontalPodAutoscaler scales.
	Autoscalers bool
}

// dumpCommand is DumpCommand with the kinds only some policies read.
func (n DumpNeeds) dumpCommand() string {
	if n.Autoscalers {
		return strings.Replace(DumpCommand, ",csinodes ", ",csinodes,hpa ", 1)
	}
	return DumpCommand
}

// Gap is a kind a dump does not list although the plan depends on it.
type Gap struct {
	// Kind is the kind, Resource kubectl's short name for it.
	Kind, Resource string
	// Because says what in the dump depends on the kind, Effect what the plan
	// does without it.
	Because, Effect string
	// Maybe is true when a cluster may well have none of the kind, so that
	// the dump may be complete.
	Maybe bool
	// command dumps the cluster again; DumpCommand when empty.
	command string
}

// Warning words the gap for someone who made the dump at path.
func (g Gap) Warning(path string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s lists no %s although %s: %s. ", path, g.Kind, g.Because, g.Effect)
	if g.Maybe {
		fmt.Fprintf(&b, "If the cluster has none, nothing is missing; otherwise add")
	} else {
		fmt.Fprintf(&b, "Add")
	}
	scope := " -A"
	if g.Kind == "Namespace" || g.Kind == "PriorityClass" {
		scope = ""
	}
	command := g.command
	if command == "" {
		command = DumpCommand
	}
	fmt.Fprintf(&b, " them to the dump (kubectl get %s%s -o yaml), or dump the cluster again with: %s", g.Resource, scope, command)
	return b.String()
}

// Gaps returns, in a fixed order, the kinds the plan depends on that the dump
// does not list.
//
// What a dump can tell: kubectl writes every kind into one generic List
// (kind: List), and a kind with no object leaves no trace in it, so "none in
// the cluster" and "not asked for" look the same. They differ only where the
// dump holds a typed List (a PodDisruptionBudgetList, as the API server and
// `kubectl get --raw` return it), empty or not: that kind was listed; and
// where the cluster cannot lack the kind: every pod's namespace exists, the
// API server creates the system-* priority classes, and a pod whose
// controller is a ReplicaSet or a StatefulSet has one, and so does a
// ReplicaSet whose controller is a Deployment (unless it was orphaned). A
// cluster may
// have no PodDisruptionBudget at all, so that gap is only ever a maybe.
func Gaps(objs Objects, needs DumpNeeds) []Gap {
	var (
		controlled, ofReplicaSets, ofStatefulSets, ofJobs int
		withClaims                                        int
		nsSelectors                                       bool
		classes                                           []string
	)
	for i := range objs.Pods {
		p := &objs.Pods[i]
		if c := metav1.GetControllerOfNoCopy(p); c != nil {
			controlled++
			if c.Kind == "ReplicaSet" {
				ofReplicaSets++
			}
			if c.Kind == "StatefulSet" {
				ofStatefulSets++
			}
			if c.Kind == "Job" && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
				ofJobs++
			}
		}
		if UsesClaims(p) && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			withClaims++
		}
		nsSelectors = nsSelectors || hasNamespaceSelector(p.Spec.Affinity)
		// Only a pod written by hand names a class with no priority: the
		// API server's admission fills spec.priority in.
		if p.Spec.Priority == nil && p.Spec.PriorityClassName != "" {
			classes = append(classes, p.Spec.PriorityClassName)
		}
	}
	missing := func(kind string, n int) bool { return n == 0 && !objs.ListedKinds[kind] }

	var gaps []Gap
	if controlled > 0 && missing("PodDisruptionBudget", len(objs.PDBs)) {
		effect := "the plan counts no disruption budget, so it may plan evictions that a budget would refuse"
		if needs.RequirePDB {
			effect = "no pod has a budget, so evictable.requirePDB keeps every one in place"
		}
		gaps = append(gaps, Gap{
			Kind: "PodDisruptionBudget", Resource: "pdb", Maybe: true,
			Because: count(controlled, "pod has a controller", "pods have a controller"),
			Effect:  effect,
		})
	}
	if ofReplicaSets > 0 && missing("ReplicaSet", len(objs.ReplicaSets)) {
		gaps = append(gaps, Gap{
			Kind: "ReplicaSet", Resource: "replicasets",
			Because: count(ofReplicaSets, "pod is owned by a ReplicaSet", "pods are owned by ReplicaSets"),
			Effect: "their Deployments cannot be found, so each ReplicaSet counts as a workload of its own " +
				"(per-workload limits, the cooldown, duplicates and topology spreading see two ReplicaSets of one rollout as two workloads)",
		})
	}
	if ofDeployments := deploymentReplicaSets(objs.ReplicaSets); needs.ImplicitBudgets && ofDeployments > 0 && missing("Deployment", len(objs.Deployments)) {
		gaps = append(gaps, Gap{
			Kind: "Deployment", Resource: "deployments",
			Because: count(ofDeployments, "ReplicaSet is owned by a Deployment", "ReplicaSets are owned by Deployments"),
			Effect: "their maxUnavailable is unknown, so the plan takes the default, 25% of each one's pods, " +
				"as the implicit budget of those no PodDisruptionBudget covers",
		})
	}
	if needs.Replicas && ofStatefulSets > 0 && missing("StatefulSet", len(objs.StatefulSets)) {
		gaps = append(gaps, Gap{
			Kind: "StatefulSet", Resource: "statefulsets",
			Because: count(ofStatefulSets, "pod is owned by a StatefulSet", "pods are owned by StatefulSets"),
			Effect:  "their replica counts are unknown, so evictable.minReplicas keeps them in place",
		})
	}
	if needs.Jobs && ofJobs > 0 && missing("Job", len(objs.Jobs)) {
		gaps = append(gaps, Gap{
			Kind: "Job", Resource: "jobs",
			Because: count(ofJobs, "unfinished pod is owned by a Job", "unfinished pods are owned by Jobs"),
			Effect:  "whether their Jobs' podFailurePolicy ignores disruptions is unknown, so they stay in place as pods whose eviction would cost their Job a retry",
		})
	}
	if ofDeployments := deploymentReplicaSets(objs.ReplicaSets); needs.Autoscalers && ofDeployments > 0 &&
		!objs.AutoscalersListed && len(objs.HorizontalPodAutoscalers) == 0 {
		gaps = append(gaps, Gap{
			Kind: "HorizontalPodAutoscaler", Resource: "hpa", Maybe: true,
			Because: count(ofDeployments, "ReplicaSet is owned by a Deployment", "ReplicaSets are owned by Deployments"),
			Effect: "the plan takes no Deployment to be scaled by one, so evictable.makeBeforeBreak may plan surges " +
				"of Deployments an autoscaler scales, which a run, reading them, would not make",
		})
	}
	if withClaims > 0 && !objs.VolumesListed && len(objs.PersistentVolumeClaims)+len(objs.PersistentVolumes)+len(objs.StorageClasses)+len(objs.CSINodes) == 0 {
		gaps = append(gaps, Gap{
			Kind: "PersistentVolumeClaim", Resource: "pv,pvc,storageclasses,csinodes",
			Because: count(withClaims, "pod uses a PersistentVolumeClaim", "pods use PersistentVolumeClaims"),
			Effect:  "where they could start is unknown (their volumes' node affinity and zones, their classes, CSI volume limits), so they stay in place",
		})
	}
	if len(objs.Pods) > 0 && missing("Namespace", len(objs.Namespaces)) {
		var by []string
		if needs.NamespaceSelectors {
			by = append(by, "the policy")
		}
		if nsSelectors {
			by = append(by, "pods' affinity terms")
		}
		if len(by) > 0 {
			gaps = append(gaps, Gap{
				Kind: "Namespace", Resource: "namespaces",
				Because: "namespaces are selected by label (by " + strings.Join(by, " and ") + ")",
				Effect:  "every namespace looks unlabelled, so those selectors match none",
			})
		}
	}
	if missing("PriorityClass", len(objs.PriorityClasses)) {
		var unknown []string
		for _, c := range append(slices.Clone(needs.PriorityClasses), classes...) {
			if _, builtin := builtinPriorityClasses[c]; !builtin && !slices.Contains(unknown, c) {
				unknown = append(unknown, c)
			}
		}
		if len(unknown) > 0 {
			slices.Sort(unknown)
			gaps = append(gaps, Gap{
				Kind: "PriorityClass", Resource: "priorityclasses",
				Because: "the policy or pods without spec.priority name " + strings.Join(unknown, ", "),
				Effect: "their values are unknown: a priorityThreshold naming one refuses the plan, " +
					"and a pod naming one has priority 0",
			})
		}
	}
	for i := range gaps {
		gaps[i].command = needs.dumpCommand()
	}
	return gaps
}

// deploymentReplicaSets counts the ReplicaSets a Deployment controls.
func deploymentReplicaSets(rss []appsv1.ReplicaSet) int {
	n := 0
	for i := range rss {
		if c := metav1.GetControllerOfNoCopy(&rss[i]); c != nil && c.Kind == "Deployment" {
			n++
		}
	}
	return n
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// hasNamespaceSelector reports whether a pod (anti-)affinity term selects
// namespaces by label.
func hasNamespaceSelector(a *corev1.Affinity) bool {
	if a == nil {
		return false
	}
	var terms []corev1.PodAffinityTerm
	if pa := a.PodAffinity; pa != nil {
		terms = append(terms, pa.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	if pa := a.PodAntiAffinity; pa != nil {
		terms = append(terms, pa.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	for _, t := range terms {
		if t.NamespaceSelector != nil {
			return true
		}
	}
	return false
}
