package policy

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// deschedulerEvictor holds the arguments of the descheduler's
// DefaultEvictor, which says which pods its strategies may evict.
type deschedulerEvictor struct {
	NodeSelector           *string               `json:"nodeSelector,omitempty"`
	LabelSelector          *metav1.LabelSelector `json:"labelSelector,omitempty"`
	NamespaceLabelSelector *metav1.LabelSelector `json:"namespaceLabelSelector,omitempty"`
	PriorityThreshold      *PriorityThreshold    `json:"priorityThreshold,omitempty"`
	NodeFit                bool                  `json:"nodeFit,omitempty"`
	MinReplicas            int64                 `json:"minReplicas,omitempty"`
	MinPodAge              *metav1.Duration      `json:"minPodAge,omitempty"`
	NoEvictionPolicy       string                `json:"noEvictionPolicy,omitempty"`
	PodProtections         podProtections        `json:"podProtections,omitempty"`

	EvictLocalStoragePods   bool `json:"evictLocalStoragePods,omitempty"`
	EvictDaemonSetPods      bool `json:"evictDaemonSetPods,omitempty"`
	EvictSystemCriticalPods bool `json:"evictSystemCriticalPods,omitempty"`
	IgnorePvcPods           bool `json:"ignorePvcPods,omitempty"`
	IgnorePodsWithoutPDB    bool `json:"ignorePodsWithoutPDB,omitempty"`
	EvictFailedBarePods     bool `json:"evictFailedBarePods,omitempty"`
}

type podProtections struct {
	ExtraEnabled    []string `json:"extraEnabled,omitempty"`
	DefaultDisabled []string `json:"defaultDisabled,omitempty"`
	Config          *struct {
		PodsWithPVC *struct {
			ProtectedStorageClasses []struct {
				Name string `json:"name"`
			} `json:"protectedStorageClasses,omitempty"`
		} `json:"PodsWithPVC,omitempty"`
	} `json:"config,omitempty"`
}

// The DefaultEvictor's protections: those on unless disabled, and those
// off unless enabled.
const (
	protectLocalStorage   = "PodsWithLocalStorage"
	protectDaemonSet      = "DaemonSetPods"
	protectSystemCritical = "SystemCriticalPods"
	protectFailedBare     = "FailedBarePods"
	protectPVC            = "PodsWithPVC"
	protectWithoutPDB     = "PodsWithoutPDB"
	protectResourceClaims = "PodsWithResourceClaims"
)

var (
	defaultProtections = []string{protectLocalStorage, protectSystemCritical, protectFailedBare, protectDaemonSet}
	extraProtections   = []string{protectPVC, protectWithoutPDB, protectResourceClaims}
)

// descheduledPriorityCeiling is the descheduler's SystemCriticalPriority:
// pods at or above it are protected whatever priorityThreshold says.
const descheduledPriorityCeiling = 2000000000

// evictorTranslation builds the evictable settings of one profile.
type evictorTranslation struct {
	ev      map[string]any
	origins map[string]string
	notes   []Note
	errs    field.ErrorList
}

func (e *evictorTranslation) set(name string, value any, from *field.Path) {
	e.ev[name] = value
	e.origins["evictable."+name] = from.String()
}

func (e *evictorTranslation) note(name, text string) {
	e.notes = append(e.notes, Note{"evictable." + name, text})
}

// translateEvictor turns DefaultEvictor arguments into evictable settings.
// at gives the path in the descheduler's document of an argument (v1alpha1
// keeps them at the top and in each strategy's params); nodeSelector is
// the policy's own; strategies are those the profile runs, for the
// protections whose meaning depends on them.
func translateEvictor(a *deschedulerEvictor, at func(arg string) *field.Path, nodeSelector *string, strategies []strategyConfig) *evictorTranslation {
	e := &evictorTranslation{ev: map[string]any{}, origins: map[string]string{}}
	protected, from := e.protections(a, at)

	if !protected[protectDaemonSet] {
		e.errs = append(e.errs, field.Forbidden(from[protectDaemonSet],
			"rebalancer never evicts DaemonSet pods: the DaemonSet recreates the pod on the same node; leave them protected"))
	}
	if !protected[protectLocalStorage] {
		e.set("localStorage", true, from[protectLocalStorage])
	}
	if protected[protectSystemCritical] {
		e.priorityThreshold(a, at)
	} else {
		e.set("systemCritical", true, from[protectSystemCritical])
		if a.PriorityThreshold != nil {
			e.note("systemCritical", "the descheduler's priorityThreshold has no effect when system-critical pods may be evicted, and is left out")
		}
	}
	if !protected[protectFailedBare] {
		e.failedBarePods(from[protectFailedBare], strategies)
	}
	if protected[protectPVC] {
		if c := a.PodProtections.Config; c != nil && c.PodsWithPVC != nil && len(c.PodsWithPVC.ProtectedStorageClasses) > 0 {
			// The descheduler lists the classes whose pods stay; rebalancer
			// lists those whose pods may move, and only the cluster knows
			// the others.
			e.errs = append(e.errs, field.Forbidden(at("podProtections").Child("config", protectPVC, "protectedStorageClasses"),
				"rebalancer lists the storage classes whose pods may move, not those that stay: set evictable.pvcStorageClasses to the cluster's other classes"))
		} else {
			e.set("pvc", false, from[protectPVC])
		}
	} else if c := a.PodProtections.Config; c != nil && c.PodsWithPVC != nil {
		e.errs = append(e.errs, field.Forbidden(at("podProtections").Child("config", protectPVC),
			"has no effect unless extraEnabled lists "+protectPVC+", as in the descheduler: enable the protection or leave this out"))
	}
	if protected[protectWithoutPDB] {
		e.set("requirePDB", true, from[protectWithoutPDB])
	}
	if !protected[protectResourceClaims] {
		// Where the descheduler would evict them, rebalancer keeps them: it
		// cannot tell whether another node's devices could take the claim.
		e.notes = append(e.notes, Note{"evictable", "the descheduler evicts pods that use ResourceClaims unless " + protectResourceClaims +
			" is enabled; rebalancer does not simulate dynamic resource allocation and keeps them in place unless evictable.resourceClaims allows them"})
	}

	if a.LabelSelector != nil {
		e.set("labelSelector", a.LabelSelector, at("labelSelector"))
	}
	if s := a.NamespaceLabelSelector; s != nil && (len(s.MatchLabels) > 0 || len(s.MatchExpressions) > 0) {
		e.set("namespaceSelector", s, at("namespaceLabelSelector"))
	}
	switch {
	case a.MinReplicas < 0:
		e.errs = append(e.errs, field.Invalid(at("minReplicas"), a.MinReplicas, "is negative"))
	case a.MinReplicas > 1: // the descheduler checks nothing for 0 or 1
		e.set("minReplicas", a.MinReplicas, at("minReplicas"))
	}
	if a.MinPodAge != nil {
		e.set("minPodAge", a.MinPodAge.Duration.String(), at("minPodAge"))
	}
	switch a.NoEvictionPolicy {
	case "", "Preferred":
	case "Mandatory":
		e.errs = append(e.errs, field.Forbidden(at("noEvictionPolicy"),
			`rebalancer does not read descheduler.alpha.kubernetes.io/prefer-no-eviction: annotate those pods rebalancer.dev/evict: "false" instead`))
	default:
		e.errs = append(e.errs, field.NotSupported(at("noEvictionPolicy"), a.NoEvictionPolicy, []string{"Preferred", "Mandatory"}))
	}
	if a.NodeSelector != nil && *a.NodeSelector != "" && a.NodeFit && (nodeSelector == nil || *nodeSelector != *a.NodeSelector) {
		e.errs = append(e.errs, field.Forbidden(at("nodeSelector"),
			"rebalancer places replacements only on the nodes of the policy's own nodeSelector: set the policy's top-level nodeSelector instead"))
	}
	if !a.NodeFit {
		e.notes = append(e.notes, Note{"evictable", "the descheduler evicts without nodeFit a pod that no other node can take; rebalancer never does"})
	}

	// The descheduler has neither of these protections.
	e.ev["jobPods"] = true
	e.note("jobPods", "the descheduler evicts the unfinished pods of Jobs; rebalancer keeps them in place unless this allows it")
	e.ev["doNotDisruptPods"] = true
	e.note("doNotDisruptPods", "the descheduler ignores the autoscalers' do-not-disrupt annotations; rebalancer honours them unless this allows it")
	return e
}

// protections returns which of the DefaultEvictor's protections are on,
// and for each where it was set (or the evictor's args, where the
// defaults apply).
func (e *evictorTranslation) protections(a *deschedulerEvictor, at func(arg string) *field.Path) (map[string]bool, map[string]*field.Path) {
	protected := map[string]bool{}
	from := map[string]*field.Path{}
	pp := a.PodProtections
	if len(pp.DefaultDisabled) == 0 && len(pp.ExtraEnabled) == 0 {
		for _, f := range []struct {
			name, arg string
			on        bool
		}{
			{protectLocalStorage, "evictLocalStoragePods", !a.EvictLocalStoragePods},
			{protectDaemonSet, "evictDaemonSetPods", !a.EvictDaemonSetPods},
			{protectSystemCritical, "evictSystemCriticalPods", !a.EvictSystemCriticalPods},
			{protectFailedBare, "evictFailedBarePods", !a.EvictFailedBarePods},
			{protectPVC, "ignorePvcPods", a.IgnorePvcPods},
			{protectWithoutPDB, "ignorePodsWithoutPDB", a.IgnorePodsWithoutPDB},
		} {
			protected[f.name] = f.on
			from[f.name] = at(f.arg)
		}
		return protected, from
	}
	// With podProtections the descheduler ignores the older flags.
	for _, f := range []struct {
		arg string
		set bool
	}{
		{"evictLocalStoragePods", a.EvictLocalStoragePods}, {"evictDaemonSetPods", a.EvictDaemonSetPods},
		{"evictSystemCriticalPods", a.EvictSystemCriticalPods}, {"ignorePvcPods", a.IgnorePvcPods},
		{"ignorePodsWithoutPDB", a.IgnorePodsWithoutPDB}, {"evictFailedBarePods", a.EvictFailedBarePods},
	} {
		if f.set {
			e.errs = append(e.errs, field.Forbidden(at(f.arg), "the descheduler ignores it when podProtections is set: say it in podProtections"))
		}
	}
	base := at("podProtections")
	for _, p := range defaultProtections {
		protected[p] = true
		from[p] = base
	}
	for i, p := range pp.DefaultDisabled {
		path := base.Child("defaultDisabled").Index(i)
		if !slices.Contains(defaultProtections, p) {
			e.errs = append(e.errs, field.NotSupported(path, p, defaultProtections))
			continue
		}
		protected[p] = false
		from[p] = path
	}
	for i, p := range pp.ExtraEnabled {
		path := base.Child("extraEnabled").Index(i)
		if !slices.Contains(extraProtections, p) {
			e.errs = append(e.errs, field.NotSupported(path, p, extraProtections))
			continue
		}
		protected[p] = true
		from[p] = path
	}
	return protected, from
}

// priorityThreshold states the priority at and above which pods stay. The
// descheduler protects SystemCriticalPriority and above in any case, and
// below it what priorityThreshold adds.
func (e *evictorTranslation) priorityThreshold(a *deschedulerEvictor, at func(arg string) *field.Path) {
	t := a.PriorityThreshold
	if t == nil || (t.Value == nil && t.Name == "") {
		return
	}
	path := at("priorityThreshold")
	switch {
	case t.Value != nil && *t.Value > descheduledPriorityCeiling:
		e.set("priorityThreshold", map[string]any{"value": descheduledPriorityCeiling}, path)
		e.note("priorityThreshold", fmt.Sprintf("the descheduler protects priority %d and above whatever the threshold", descheduledPriorityCeiling))
	case t.Value == nil && t.Name == "system-node-critical":
		e.set("priorityThreshold", map[string]any{"value": descheduledPriorityCeiling}, path)
		e.note("priorityThreshold", fmt.Sprintf("the descheduler protects priority %d (system-cluster-critical) and above whatever the threshold", descheduledPriorityCeiling))
	default:
		e.set("priorityThreshold", t, path)
	}
}

// failedBarePods allows what the descheduler's FailedBarePods protection,
// turned off, allows: bare pods in the Failed phase. rebalancer allows
// bare pods or not, whatever their phase, which is the same thing only
// when every strategy that runs moves failed pods alone.
func (e *evictorTranslation) failedBarePods(from *field.Path, strategies []strategyConfig) {
	var others []string
	for _, s := range strategies {
		if s.enabled && !s.row.failedOnly {
			others = append(others, s.row.name)
		}
	}
	if len(others) > 0 {
		e.errs = append(e.errs, field.Forbidden(from, fmt.Sprintf(
			"rebalancer allows bare pods in every phase or in none (evictable.barePods), and %v would move running bare pods too: "+
				"run only the strategies that move failed pods with it, or annotate the bare pods descheduler.alpha.kubernetes.io/evict", others)))
		return
	}
	e.set("barePods", true, from)
	e.note("barePods", "only strategies that move failed pods run, so this allows failed bare pods only, as the descheduler's setting does")
}
