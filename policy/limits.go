package policy

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Limits bound the number of evictions of one cycle. An absent limit is no
// limit; 0 forbids evictions.
type Limits struct {
	// Total bounds the evictions of the whole cycle.
	Total *int32 `json:"total,omitempty"`
	// PerRun bounds the evictions of the whole cycle, every step together,
	// from any one node, namespace or workload: what the descheduler's
	// maxNoOfPodsToEvictPerNode and maxNoOfPodsToEvictPerNamespace mean. A
	// move past one is skipped; it never opens a step.
	PerRun *LimitBounds `json:"perRun,omitempty"`
	// PerStep bounds what is evicted at once, in any one step: a move past
	// one waits for the next step, after the replacements of this one are
	// Ready.
	PerStep *LimitBounds `json:"perStep,omitempty"`

	// PerNode is the former name of perStep.node.
	PerNode *int32 `json:"perNode,omitempty"`
	// PerNamespace is the former name of perStep.namespace.
	PerNamespace *int32 `json:"perNamespace,omitempty"`
	// PerWorkload is the former name of perStep.workload.
	PerWorkload *int32 `json:"perWorkload,omitempty"`
}

// LimitBounds bound the evictions from one node, in one namespace and of
// one workload, over a run or a step.
type LimitBounds struct {
	// Node bounds the evictions from any one node.
	Node *int32 `json:"node,omitempty"`
	// Namespace bounds the evictions in any one namespace.
	Namespace *int32 `json:"namespace,omitempty"`
	// Workload bounds the evictions of the pods of any one workload
	// (Deployment, StatefulSet, …): a count, or a percentage of the
	// workload's replicas rounded up, as a PodDisruptionBudget's
	// maxUnavailable is ("25%" of 1 replica is 1).
	Workload *intstr.IntOrString `json:"workload,omitempty"`
}

// Bound is one limit as it applies: at most Max (a count, or a percentage
// of a workload's replicas), set by the field Field names.
type Bound[T any] struct {
	Max   *T
	Field string
}

// Bounds are the limits of a run or of a step, with the fields that set
// them.
type Bounds struct {
	Node     Bound[int32]
	Workload Bound[intstr.IntOrString]
}

// Step returns the per-step bounds on nodes and workloads: perStep's, or
// the former flat fields'. The namespace's is in Settings, which overrides
// may change.
func (l *Limits) Step() Bounds {
	var b Bounds
	switch {
	case l.PerStep != nil && l.PerStep.Node != nil:
		b.Node = Bound[int32]{l.PerStep.Node, "limits.perStep.node"}
	case l.PerNode != nil:
		b.Node = Bound[int32]{l.PerNode, "limits.perNode"}
	}
	switch {
	case l.PerStep != nil && l.PerStep.Workload != nil:
		b.Workload = Bound[intstr.IntOrString]{l.PerStep.Workload, "limits.perStep.workload"}
	case l.PerWorkload != nil:
		v := intstr.FromInt32(*l.PerWorkload)
		b.Workload = Bound[intstr.IntOrString]{&v, "limits.perWorkload"}
	}
	return b
}

// Run returns the per-run bounds on nodes and workloads. The namespace's is
// in Settings, which overrides may change.
func (l *Limits) Run() Bounds {
	var b Bounds
	if r := l.PerRun; r != nil {
		if r.Node != nil {
			b.Node = Bound[int32]{r.Node, "limits.perRun.node"}
		}
		if r.Workload != nil {
			b.Workload = Bound[intstr.IntOrString]{r.Workload, "limits.perRun.workload"}
		}
	}
	return b
}

// OverrideLimits are the limits an override may set: those of its
// namespaces.
type OverrideLimits struct {
	// PerRun.Namespace bounds the evictions in each of its namespaces over
	// a run.
	PerRun *NamespaceBound `json:"perRun,omitempty"`
	// PerStep.Namespace bounds them in each step.
	PerStep *NamespaceBound `json:"perStep,omitempty"`
	// PerNamespace is the former name of perStep.namespace.
	PerNamespace *int32 `json:"perNamespace,omitempty"`
}

// NamespaceBound is the bound an override may set on its namespaces.
type NamespaceBound struct {
	Namespace *int32 `json:"namespace,omitempty"`
}

// HasPerRunLimits reports whether a per-run bound on nodes, namespaces or
// workloads is set, globally or by an override.
func (p *Policy) HasPerRunLimits() bool {
	if r := p.Limits.PerRun; r != nil && (r.Node != nil || r.Namespace != nil || r.Workload != nil) {
		return true
	}
	for _, s := range p.allSettings() {
		if s.PerRunNamespaceLimit != nil {
			return true
		}
	}
	return false
}

// Deprecations lists the former names the policy uses, each with the name
// that replaces it.
func (p *Policy) Deprecations() []string {
	var out []string
	add := func(limits *field.Path, former, child string, set bool) {
		if set {
			out = append(out, fmt.Sprintf("%s is deprecated: write %s, the same bound on each step (%s bounds the whole run)",
				limits.Child(former), limits.Child("perStep", child), limits.Child("perRun", child)))
		}
	}
	limits := field.NewPath("limits")
	add(limits, "perNode", "node", p.Limits.PerNode != nil)
	add(limits, "perNamespace", "namespace", p.Limits.PerNamespace != nil)
	add(limits, "perWorkload", "workload", p.Limits.PerWorkload != nil)
	for i, o := range p.Overrides {
		add(field.NewPath("overrides").Index(i).Child("limits"), "perNamespace", "namespace", o.Limits.PerNamespace != nil)
	}
	for i, w := range p.DisruptionWindows {
		if l := w.Limits; l != nil {
			path := field.NewPath("disruptionWindows").Index(i).Child("limits")
			add(path, "perNode", "node", l.PerNode != nil)
			add(path, "perNamespace", "namespace", l.PerNamespace != nil)
			add(path, "perWorkload", "workload", l.PerWorkload != nil)
		}
	}
	return out
}

func (l *Limits) validate(path *field.Path) field.ErrorList {
	var step LimitBounds
	if l.PerStep != nil {
		step = *l.PerStep
	}
	errs := validateFormer(l.PerNode, step.Node != nil, path, "perNode", "node")
	errs = append(errs, validateFormer(l.PerNamespace, step.Namespace != nil, path, "perNamespace", "namespace")...)
	errs = append(errs, validateFormer(l.PerWorkload, step.Workload != nil, path, "perWorkload", "workload")...)
	errs = append(errs, validateLimit(l.Total, path.Child("total"))...)
	errs = append(errs, l.PerRun.validate(path.Child("perRun"))...)
	return append(errs, l.PerStep.validate(path.Child("perStep"))...)
}

func (b *LimitBounds) validate(path *field.Path) field.ErrorList {
	if b == nil {
		return nil
	}
	errs := validateLimit(b.Node, path.Child("node"))
	errs = append(errs, validateLimit(b.Namespace, path.Child("namespace"))...)
	return append(errs, validateIntOrPercent(b.Workload, path.Child("workload"))...)
}

// validateFormer checks a former flat limit (limits.perNode), which names
// the same bound as its perStep field: one of the two may be set.
func validateFormer(v *int32, newSet bool, path *field.Path, former, child string) field.ErrorList {
	errs := validateLimit(v, path.Child(former))
	if v != nil && newSet {
		errs = append(errs, field.Forbidden(path.Child(former),
			fmt.Sprintf("is the former name of %s, which is set too: keep %s", path.Child("perStep", child), path.Child("perStep", child))))
	}
	return errs
}

// validateIntOrPercent checks a count or a percentage: a whole number of 0
// or more, or "N%" with N from 0 to 100.
func validateIntOrPercent(v *intstr.IntOrString, path *field.Path) field.ErrorList {
	if v == nil {
		return nil
	}
	if v.Type == intstr.Int {
		return validateLimit(&v.IntVal, path)
	}
	// A percentage of 100 is the number itself, as apimachinery scales it.
	n, err := intstr.GetScaledValueFromIntOrPercent(v, 100, false)
	if len(validation.IsValidPercent(v.StrVal)) > 0 || err != nil {
		return field.ErrorList{field.Invalid(path, v.StrVal, "is neither a whole number nor a percentage (\"25%\")")}
	}
	if n > 100 {
		return field.ErrorList{field.Invalid(path, v.StrVal, "is above 100%")}
	}
	return nil
}

func validateLimit(v *int32, path *field.Path) field.ErrorList {
	if v != nil && *v < 0 {
		return field.ErrorList{field.Invalid(path, *v, "is negative (leave it out for no limit)")}
	}
	return nil
}

func (l *OverrideLimits) validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if l.PerRun != nil {
		errs = append(errs, validateLimit(l.PerRun.Namespace, path.Child("perRun", "namespace"))...)
	}
	stepSet := false
	if l.PerStep != nil {
		errs = append(errs, validateLimit(l.PerStep.Namespace, path.Child("perStep", "namespace"))...)
		stepSet = l.PerStep.Namespace != nil
	}
	return append(errs, validateFormer(l.PerNamespace, stepSet, path, "perNamespace", "namespace")...)
}
