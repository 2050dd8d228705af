package policy

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// APIVersion and Kind identify a RebalancePolicy document.
const (
	APIVersion = "rebalancer.dev/v1alpha1"
	Kind       = "RebalancePolicy"
)

// RebalancePolicy is the policy file as users write it.
type RebalancePolicy struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`

	// NodeSelector limits rebalancing to the nodes it selects: pods are
	// evicted only from them and only placed on them. Empty selects every node.
	NodeSelector *metav1.LabelSelector `json:"nodeSelector,omitempty"`
	// Namespaces limits rebalancing to some namespaces.
	Namespaces *Namespaces `json:"namespaces,omitempty"`
	// Limits bound the evictions of one cycle.
	Limits Limits `json:"limits,omitempty"`
	// DisruptionWindows say when runs may evict. None: at any time. An
	// open window with evict: false forbids evictions; otherwise, when a
	// window with evict: true exists, runs evict only while one is open,
	// under its limits. A run at another time plans and reports as a dry
	// run does, and says why.
	DisruptionWindows []DisruptionWindow `json:"disruptionWindows,omitempty"`
	// GracePeriodSeconds overrides the pods' termination grace period on
	// eviction; unset keeps each pod's own.
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty"`
	// Cooldown leaves a workload alone for this long after one of its pods
	// was evicted, so that its replacements settle before anything is
	// judged again and two cycles never undo each other. Default 5m; 0
	// turns it off. Runs remember their evictions in a ConfigMap.
	Cooldown *metav1.Duration `json:"cooldown,omitempty"`
	// ImplicitBudgets makes a workload that no PodDisruptionBudget covers
	// keep to its own statement of how many of its pods may be down at
	// once, as its budget in each step: a Deployment's
	// spec.strategy.rollingUpdate.maxUnavailable (25% by default), a
	// StatefulSet's one pod at a time. Default true; false lets a step
	// evict every pod of such a workload at once, as the descheduler does.
	ImplicitBudgets *bool `json:"implicitBudgets,omitempty"`
	// Evictable says which pods may be evicted at all.
	Evictable Evictable `json:"evictable,omitempty"`
	// Strategies maps a strategy name to its arguments. A strategy runs when
	// its key is present, unless its arguments say enabled: false.
	Strategies Strategies `json:"strategies,omitempty"`
	// Scheduler names the scheduler profiles a plan simulates, so that it
	// predicts where the scheduler that will place each replacement puts it.
	Scheduler *Scheduler `json:"scheduler,omitempty"`
	// Replacements says whether something steers the replacements of
	// evicted pods to the nodes the plan chose (ReplacementsSteered, the
	// default) or nothing does and the plan can only predict where they
	// land (ReplacementsPredicted).
	Replacements Replacements `json:"replacements,omitempty"`
	// MetricsProviders say how to reach the sources of usage that
	// strategies with metricsUtilization read, as the descheduler's
	// metricsProviders do: KubernetesMetrics needs no more than the
	// cluster's API; Prometheus needs its url.
	MetricsProviders []MetricsProvider `json:"metricsProviders,omitempty"`
	// Overrides tune the pod-level settings of some namespaces. A pod's
	// settings are the global ones overlaid by the first override that
	// matches its namespace.
	Overrides []Override `json:"overrides,omitempty"`
}

// UsesImplicitBudgets reports whether workloads without a
// PodDisruptionBudget keep to their own maxUnavailable (ImplicitBudgets,
// on unless set false).
func (p *RebalancePolicy) UsesImplicitBudgets() bool {
	return p.ImplicitBudgets == nil || *p.ImplicitBudgets
}

// Namespaces selects namespaces by name: either only the included ones, or
// all but the excluded ones.
type Namespaces struct {
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
}

// Allows reports whether the namespace is selected. A nil Namespaces allows
// every namespace.
func (n *Namespaces) Allows(namespace string) bool {
	if n == nil {
		return true
	}
	if len(n.Include) > 0 {
		return contains(n.Include, namespace)
	}
	return !contains(n.Exclude, namespace)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Evictable holds the soft protections: each keeps a kind of pod in place
// unless the policy allows it. Mirror and static pods, DaemonSet pods and
// pods already terminating are never evicted, whatever these say.
type Evictable struct {
	// SystemCritical allows evicting pods at or above the priority threshold
	// (default false).
	SystemCritical *bool `json:"systemCritical,omitempty"`
	// PriorityThreshold is the priority at and above which pods are
	// protected; default: the value of the system-cluster-critical class.
	PriorityThreshold *PriorityThreshold `json:"priorityThreshold,omitempty"`
	// LocalStorage allows evicting pods with emptyDir or hostPath volumes,
	// whose data is lost (default false).
	LocalStorage *bool `json:"localStorage,omitempty"`
	// PVC allows evicting pods that use a PersistentVolumeClaim (default true).
	PVC *bool `json:"pvc,omitempty"`
	// PVCStorageClasses, when set, narrows PVC to the pods whose claims are
	// all of these StorageClasses: a pod with a claim of another class stays
	// (descheduler's protectedStorageClasses, the other way round). PVC
	// false keeps every pod with a claim, whatever this lists.
	PVCStorageClasses []string `json:"pvcStorageClasses,omitempty"`
	// BarePods allows evicting pods that no controller will recreate
	// (default false).
	BarePods *bool `json:"barePods,omitempty"`
	// JobPods allows evicting the unfinished pods of Jobs (and so of
	// CronJobs), which the Job controller counts as failures against
	// backoffLimit and whose work is lost (default false). The pods of a Job
	// whose podFailurePolicy ignores DisruptionTarget may move regardless.
	JobPods *bool `json:"jobPods,omitempty"`
	// DoNotDisruptPods allows evicting pods that an autoscaler's annotation
	// keeps in place: cluster-autoscaler.kubernetes.io/safe-to-evict: "false"
	// or karpenter.sh/do-not-disrupt: "true", or a duration from the pod's
	// start that has not passed (default false).
	DoNotDisruptPods *bool `json:"doNotDisruptPods,omitempty"`
	// ResourceClaims allows evicting pods that use dynamic resource
	// allocation (spec.resourceClaims): the plan does not simulate their
	// devices, so it cannot tell whether the target node can give them any
	// (default false).
	ResourceClaims *bool `json:"resourceClaims,omitempty"`
	// MinReplicas keeps in place the pods of a controller that asks for
	// fewer replicas than this: a ReplicaSet's or StatefulSet's
	// spec.replicas, a Job's spec.parallelism. 0 and 1 keep none (default 0).
	MinReplicas *int32 `json:"minReplicas,omitempty"`
	// RequirePDB lets only the pods that a PodDisruptionBudget covers be
	// evicted (default false).
	RequirePDB *bool `json:"requirePDB,omitempty"`
	// MakeBeforeBreak lets a move that a PodDisruptionBudget, the
	// workload's implicit budget or minReplicas would forbid be made by
	// surge, for the pods of a Deployment no HorizontalPodAutoscaler
	// scales: the Deployment gets one replica more, the new pod is placed
	// on the planned node, and once it is Ready the Deployment goes back to
	// its replicas, the old pod being the one its ReplicaSet removes
	// (default false).
	MakeBeforeBreak *bool `json:"makeBeforeBreak,omitempty"`
	// MinPodAge protects pods younger than this (default 0: none).
	MinPodAge *metav1.Duration `json:"minPodAge,omitempty"`
	// LabelSelector, when set, limits eviction to the pods it selects.
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
	// NamespaceSelector, when set, limits eviction to the pods of the
	// namespaces whose labels it selects. It is a global setting: an
	// override already applies to namespaces of its choosing.
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`

	selector          labels.Selector
	namespaceSelector labels.Selector
}

// PriorityThreshold is a priority given as a number or as the name of a
// PriorityClass.
type PriorityThreshold struct {
	Value *int32 `json:"value,omitempty"`
	Name  string `json:"name,omitempty"`
}

// Matches reports whether pod labels pass the evictable label selector.
func (e *Evictable) Matches(podLabels map[string]string) bool {
	return e.selector == nil || e.selector.Matches(labels.Set(podLabels))
}

// SelectsNamespace reports whether a namespace with these labels passes the
// evictable namespace selector.
func (e *Evictable) SelectsNamespace(namespaceLabels map[string]string) bool {
	return e.namespaceSelector == nil || e.namespaceSelector.Matches(labels.Set(namespaceLabels))
}

// Override tunes the settings of the pods of some namespaces, chosen by name
// or by a selector on namespace labels.
type Override struct {
	Namespaces        []string              `json:"namespaces,omitempty"`
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`

	// Strategies overlays the global strategy arguments field by field; maps
	// merge and lists replace. Node-level arguments (thresholds of the
	// utilization strategies) cannot be set here.
	Strategies Strategies     `json:"strategies,omitempty"`
	Evictable  Evictable      `json:"evictable,omitempty"`
	Limits     OverrideLimits `json:"limits,omitempty"`
}

// Scheduler configures the simulation of the schedulers that place the
// replacements of evicted pods.
type Scheduler struct {
	// ConfigFile is a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1),
	// typically the one `rebalancer schedule` runs with; a relative path is
	// relative to the policy file.
	ConfigFile string `json:"configFile,omitempty"`
	// Config is the same, inline.
	Config json.RawMessage `json:"config,omitempty"`
	// SchedulerName, when set, simulates this profile for every pod, as if
	// every replacement were placed by it. Unset, each pod is simulated with
	// the profile its spec.schedulerName names, and pods of any scheduler
	// without a profile here with kube-scheduler's default profile.
	SchedulerName string `json:"schedulerName,omitempty"`
	// CallExtenders makes the plan call the configuration's extenders, as
	// its scheduler would, for the pods its profiles place. Off by default,
	// so that planning stays offline and the same snapshot gives the same
	// plan.
	CallExtenders bool `json:"callExtenders,omitempty"`
}
