package cluster

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// checkDecoded returns what kube-apiserver would refuse in an object of a
// dump that decoded, among the fields a plan reads: a dump edited by hand
// would otherwise be planned with a pod named "shop/", a budget that
// allows nothing, or a taint no rule knows.
func checkDecoded(raw []byte, obj runtime.Object) field.ErrorList {
	var errs field.ErrorList
	if m, ok := obj.(metav1.Object); ok && m.GetName() == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "name"), "every object of a dump has a name"))
	}
	switch t := obj.(type) {
	case *corev1.Pod:
		errs = append(errs, checkPodSpec(raw, &t.Spec)...)
	case *corev1.Node:
		for i, taint := range t.Spec.Taints {
			if !knownEffect(taint.Effect, false) {
				errs = append(errs, effectError(field.NewPath("spec", "taints").Index(i).Child("effect"), taint.Effect))
			}
		}
	case *policyv1.PodDisruptionBudget:
		if t.Spec.MinAvailable != nil || t.Spec.MaxUnavailable != nil {
			spec := field.NewPath("spec")
			errs = append(errs, checkBudget(spec.Child("minAvailable"), t.Spec.MinAvailable)...)
			errs = append(errs, checkBudget(spec.Child("maxUnavailable"), t.Spec.MaxUnavailable)...)
			if t.Spec.MinAvailable != nil && t.Spec.MaxUnavailable != nil {
				errs = append(errs, field.Invalid(spec, "minAvailable and maxUnavailable", "set one of minAvailable and maxUnavailable, not both"))
			}
		}
	}
	return errs
}

// checkPodSpec builds a field path only for a problem: it runs for every
// pod of a dump.
func checkPodSpec(raw []byte, spec *corev1.PodSpec) field.ErrorList {
	var errs field.ErrorList
	if len(spec.Containers) == 0 && nullContainers(raw) {
		// A dump cut short by hand may leave the containers out; null
		// says they were there and are gone.
		errs = append(errs, field.Invalid(field.NewPath("spec", "containers"), nil, "must be the list of the pod's containers"))
	}
	unnamed := func(list string, cs []corev1.Container) {
		for i := range cs {
			if cs[i].Name == "" {
				errs = append(errs, field.Required(field.NewPath("spec", list).Index(i).Child("name"), "every container has a name"))
			}
		}
	}
	unnamed("initContainers", spec.InitContainers)
	unnamed("containers", spec.Containers)
	for i, tol := range spec.Tolerations {
		if !knownEffect(tol.Effect, true) {
			errs = append(errs, effectError(field.NewPath("spec", "tolerations").Index(i).Child("effect"), tol.Effect))
		}
	}
	return errs
}

// nullContainers reports whether the pod raw holds says containers: null.
func nullContainers(raw []byte) bool {
	var pod struct {
		Spec struct {
			Containers json.RawMessage `json:"containers"`
		} `json:"spec"`
	}
	return json.Unmarshal(raw, &pod) == nil && string(pod.Spec.Containers) == "null"
}

// knownEffect reports whether kube-scheduler knows a taint's effect; a
// toleration may leave it empty, to tolerate every effect.
func knownEffect(effect corev1.TaintEffect, mayBeEmpty bool) bool {
	switch effect {
	case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		return true
	}
	return effect == "" && mayBeEmpty
}

func effectError(path *field.Path, effect corev1.TaintEffect) *field.Error {
	if effect == "" {
		return field.Required(path, "NoSchedule, PreferNoSchedule or NoExecute")
	}
	return field.Invalid(path, string(effect), "must be NoSchedule, PreferNoSchedule or NoExecute")
}

// checkBudget refuses a PodDisruptionBudget's count that is neither a whole
// number nor a percentage of at most 100%: kube-controller-manager would
// allow no disruption for it, and the plan would guess.
func checkBudget(path *field.Path, v *intstr.IntOrString) field.ErrorList {
	if v == nil {
		return nil
	}
	// Scaled against 100, a percentage reads as itself.
	n, err := intstr.GetScaledValueFromIntOrPercent(v, 100, false)
	switch {
	case v.Type == intstr.Int && n < 0:
		return field.ErrorList{field.Invalid(path, v.IntVal, "must be greater than or equal to 0")}
	case v.Type == intstr.String && (err != nil || n < 0 || n > 100):
		return field.ErrorList{field.Invalid(path, v.StrVal, "must be a whole number or a percentage from 0% to 100%, such as 1 or 25%")}
	}
	return nil
}
