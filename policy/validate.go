package policy

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validate reports every problem of the global part of the policy.
func (p *RebalancePolicy) validate() field.ErrorList {
	var errs field.ErrorList
	if p.APIVersion != APIVersion {
		errs = append(errs, field.NotSupported(field.NewPath("apiVersion"), p.APIVersion, []string{APIVersion, DeschedulerV1alpha2, DeschedulerV1alpha1}))
	}
	if p.Kind != Kind {
		errs = append(errs, field.NotSupported(field.NewPath("kind"), p.Kind, []string{Kind}))
	}
	errs = append(errs, ValidateSelector(p.NodeSelector, field.NewPath("nodeSelector"))...)
	errs = append(errs, ValidateNamespaces(p.Namespaces, field.NewPath("namespaces"))...)
	errs = append(errs, p.Limits.validate(field.NewPath("limits"))...)
	_, windowErrs := compileWindows(p.DisruptionWindows, field.NewPath("disruptionWindows"))
	errs = append(errs, windowErrs...)
	if g := p.GracePeriodSeconds; g != nil {
		switch {
		case *g < 0:
			errs = append(errs, field.Invalid(field.NewPath("gracePeriodSeconds"), *g, "is negative"))
		case *g > MaxGracePeriodSeconds:
			// Seconds this large overflow what the kubelet counts them in,
			// and no eviction waits a day for a pod to stop.
			errs = append(errs, field.Invalid(field.NewPath("gracePeriodSeconds"), *g,
				fmt.Sprintf("is above %d (a day); leave it out to keep each pod's own terminationGracePeriodSeconds", MaxGracePeriodSeconds)))
		case *g == 0:
			// The API server takes a grace period of 0 as a force deletion:
			// the object goes at once while the kubelet may still run the
			// containers, so a StatefulSet's replacement can start beside
			// the old pod under the same identity, on the same volume.
			errs = append(errs, field.Invalid(field.NewPath("gracePeriodSeconds"), *g,
				"is a force deletion: the pod object goes at once while its containers may still run, so its replacement can run beside it "+
					"(two StatefulSet pods with one identity, a ReadWriteOnce volume used twice); set 1 or more, or leave it out to keep each pod's own"))
		}
	}
	if c := p.Cooldown; c != nil && c.Duration < 0 {
		errs = append(errs, field.Invalid(field.NewPath("cooldown"), c.Duration.String(), "is negative (0 turns the cooldown off)"))
	}
	switch p.Replacements {
	case ReplacementsSteered, ReplacementsPredicted:
	default:
		errs = append(errs, field.NotSupported(field.NewPath("replacements"), p.Replacements,
			[]Replacements{ReplacementsSteered, ReplacementsPredicted}))
	}
	if s := p.Scheduler; s != nil {
		path := field.NewPath("scheduler")
		switch {
		case s.ConfigFile != "" && len(s.Config) > 0:
			errs = append(errs, field.Forbidden(path, "set configFile or config, not both"))
		case s.ConfigFile == "" && len(s.Config) == 0 && s.SchedulerName == "":
			errs = append(errs, field.Required(path.Child("configFile"), "a KubeSchedulerConfiguration file, or config inline"))
		}
		if s.CallExtenders && s.ConfigFile == "" && len(s.Config) == 0 {
			errs = append(errs, field.Required(path.Child("configFile"), "callExtenders calls the extenders of a KubeSchedulerConfiguration: give its file, or config inline"))
		}
		if n := s.SchedulerName; n != "" {
			for _, msg := range validation.IsDNS1123Subdomain(n) {
				errs = append(errs, field.Invalid(path.Child("schedulerName"), n, msg))
			}
		}
	}
	errs = append(errs, p.Evictable.validate(field.NewPath("evictable"))...)
	errs = append(errs, p.Strategies.validate(field.NewPath("strategies"))...)
	errs = append(errs, validateMetricsProviders(p.MetricsProviders, field.NewPath("metricsProviders"))...)
	errs = append(errs, p.validateMetricsSources()...)
	errs = append(errs, p.Strategies.validateEvictable(&p.Evictable, field.NewPath("strategies"))...)
	return errs
}

func (s *Strategies) validate(path *field.Path) field.ErrorList {
	errs := s.validateCombination(path)
	for _, n := range s.List() {
		errs = append(errs, n.Args.Validate(path.Child(n.Name))...)
	}
	return errs
}

func (e *Evictable) validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if t := e.PriorityThreshold; t != nil {
		tp := path.Child("priorityThreshold")
		switch {
		case t.Value != nil && t.Name != "":
			errs = append(errs, field.Invalid(tp, t, "sets both value and name; set one"))
		case t.Value == nil && t.Name == "":
			errs = append(errs, field.Required(tp, "value or name"))
		case t.Name != "":
			for _, msg := range validation.IsDNS1123Subdomain(t.Name) {
				errs = append(errs, field.Invalid(tp.Child("name"), t.Name, msg))
			}
		}
		if e.SystemCritical != nil && *e.SystemCritical {
			errs = append(errs, field.Forbidden(tp, "has no effect when systemCritical is true, which lets pods of any priority be evicted"))
		}
	}
	if d := e.MinPodAge; d != nil && d.Duration < 0 {
		errs = append(errs, field.Invalid(path.Child("minPodAge"), d.Duration.String(), "is negative"))
	}
	if m := e.MinReplicas; m != nil && *m < 0 {
		errs = append(errs, field.Invalid(path.Child("minReplicas"), *m, "is negative (0 keeps no pod for its replica count)"))
	}
	errs = append(errs, ValidateSelector(e.NamespaceSelector, path.Child("namespaceSelector"))...)
	if len(e.PVCStorageClasses) > 0 {
		cp := path.Child("pvcStorageClasses")
		for i, name := range e.PVCStorageClasses {
			for _, msg := range validation.IsDNS1123Subdomain(name) {
				errs = append(errs, field.Invalid(cp.Index(i), name, msg))
			}
		}
	}
	return append(errs, ValidateSelector(e.LabelSelector, path.Child("labelSelector"))...)
}

// ValidateNamespaces checks a namespaces list: include or exclude, each
// entry a namespace name.
func ValidateNamespaces(n *Namespaces, path *field.Path) field.ErrorList {
	if n == nil {
		return nil
	}
	var errs field.ErrorList
	if len(n.Include) > 0 && len(n.Exclude) > 0 {
		errs = append(errs, field.Forbidden(path, "set include or exclude, not both"))
	}
	errs = append(errs, validateNamespaceNames(n.Include, path.Child("include"))...)
	return append(errs, validateNamespaceNames(n.Exclude, path.Child("exclude"))...)
}

func validateNamespaceNames(names []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := make(map[string]bool, len(names))
	for i, name := range names {
		for _, msg := range validation.IsDNS1123Label(name) {
			errs = append(errs, field.Invalid(path.Index(i), name, fmt.Sprintf("is not a namespace name: %s", msg)))
		}
		if seen[name] {
			errs = append(errs, field.Duplicate(path.Index(i), name))
		}
		seen[name] = true
	}
	return errs
}

// ValidateSelector checks a label selector as the API server does.
func ValidateSelector(s *metav1.LabelSelector, path *field.Path) field.ErrorList {
	return metav1validation.ValidateLabelSelector(s, metav1validation.LabelSelectorValidationOptions{}, path)
}

// compileSelector parses a selector. A nil selector stays nil, so that
// callers can tell "no selector" from "select everything".
func compileSelector(s *metav1.LabelSelector, path *field.Path) (labels.Selector, field.ErrorList) {
	if s == nil {
		return nil, nil
	}
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		return nil, field.ErrorList{field.Invalid(path, s, err.Error())}
	}
	return sel, nil
}
