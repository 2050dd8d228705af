package nodetaints

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube-rebalancer/rebalancer/policy"
)

// Args configure RemovePodsViolatingNodeTaints, which moves pods off nodes
// whose NoSchedule taints they do not tolerate (a taint added after they
// were scheduled, or a toleration removed). NoExecute taints are left to
// the kubelet's taint manager, which evicts on its own.
type Args struct {
	policy.Common `json:",inline"`

	// ExcludedTaints are taints never acted on, as "key" (any value) or
	// "key=value". Unset, and with IncludedTaints unset, the taints the node
	// controllers put on a node for a cordon or a condition
	// (DefaultExcludedTaints).
	ExcludedTaints []string `json:"excludedTaints,omitempty"`
	// IncludedTaints, when set, are the only taints acted on, in the same
	// form.
	IncludedTaints []string `json:"includedTaints,omitempty"`
	// IncludePreferNoSchedule acts on PreferNoSchedule taints too (default
	// false).
	IncludePreferNoSchedule *bool `json:"includePreferNoSchedule,omitempty"`
}

// DefaultExcludedTaints are the NoSchedule taints left alone unless
// includedTaints or excludedTaints say otherwise: the cordon taint, and the
// taints the node lifecycle controller puts on a node while a condition
// lasts (memory, disk or PID pressure, a network not set up). A cordon says
// "no new pods here", not "move these": draining is for whoever cordoned
// the node, in their order. Under a condition the kubelet is already
// handling the pressure, evicting pods of its own choosing; moving every
// pod that does not tolerate the taint would be a stampede on top of it.
var DefaultExcludedTaints = []string{
	corev1.TaintNodeUnschedulable,
	corev1.TaintNodeMemoryPressure,
	corev1.TaintNodeDiskPressure,
	corev1.TaintNodePIDPressure,
	corev1.TaintNodeNetworkUnavailable,
}

// Default fills in unset arguments; RemovePodsViolatingNodeTaints has none
// to fill.
func (a *Args) Default() {}

// NodeLevelFields: every argument says which pods move.
func (a *Args) NodeLevelFields() []string { return nil }

// Considers reports whether a taint of this key, value and effect is one the
// strategy acts on.
func (a *Args) Considers(key, value, effect string) bool {
	switch effect {
	case "NoSchedule":
	case "PreferNoSchedule":
		if !policy.IsTrue(a.IncludePreferNoSchedule) {
			return false
		}
	default:
		return false
	}
	if len(a.IncludedTaints) > 0 {
		return matchesTaint(a.IncludedTaints, key, value)
	}
	excluded := a.ExcludedTaints
	if len(excluded) == 0 {
		excluded = DefaultExcludedTaints
	}
	return !matchesTaint(excluded, key, value)
}

// IncludesPreferNoSchedule reports whether PreferNoSchedule taints count.
func (a *Args) IncludesPreferNoSchedule() bool {
	return policy.IsTrue(a.IncludePreferNoSchedule)
}

// matchesTaint reports whether an entry of the list names the taint, as the
// descheduler matches them: "key" matches every value of the key,
// "key=value" a taint with that non-empty value.
func matchesTaint(list []string, key, value string) bool {
	return slices.Contains(list, key) || (value != "" && slices.Contains(list, key+"="+value))
}

// Validate reports every invalid argument.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.Common.Validate(path)
	if len(a.ExcludedTaints) > 0 && len(a.IncludedTaints) > 0 {
		errs = append(errs, field.Forbidden(path, "set includedTaints or excludedTaints, not both"))
	}
	errs = append(errs, validateTaintList(a.ExcludedTaints, path.Child("excludedTaints"))...)
	return append(errs, validateTaintList(a.IncludedTaints, path.Child("includedTaints"))...)
}

func validateTaintList(list []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range list {
		p := path.Index(i)
		if t == "" {
			errs = append(errs, field.Required(p, `a taint as "key" or "key=value"`))
			continue
		}
		if slices.Contains(list[:i], t) {
			errs = append(errs, field.Duplicate(p, t))
			continue
		}
		k, v, _ := strings.Cut(t, "=")
		for _, msg := range validation.IsQualifiedName(k) {
			errs = append(errs, field.Invalid(p, t, "does not start with a taint key: "+msg))
		}
		for _, msg := range validation.IsValidLabelValue(v) {
			errs = append(errs, field.Invalid(p, t, "does not end with a taint value: "+msg))
		}
	}
	return errs
}
