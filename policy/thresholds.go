package policy

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ResourceThresholds maps a resource name (cpu, memory, pods,
// ephemeral-storage or an extended resource such as nvidia.com/gpu) to a
// percentage of the node's allocatable amount.
type ResourceThresholds map[string]float64

// Names returns the listed resources, sorted.
func (t ResourceThresholds) Names() []string {
	names := make([]string, 0, len(t))
	for n := range t {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// String formats the thresholds as "cpu=20%, memory=20%".
func (t ResourceThresholds) String() string {
	parts := make([]string, 0, len(t))
	for _, n := range t.Names() {
		parts = append(parts, fmt.Sprintf("%s=%g%%", n, t[n]))
	}
	return strings.Join(parts, ", ")
}

// ValidateThresholds checks the resource names and that each percentage is
// between 0 and 100.
func ValidateThresholds(t ResourceThresholds, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, name := range t.Names() {
		p := path.Child(name)
		if msg := resourceNameProblem(name); msg != "" {
			errs = append(errs, field.Invalid(p, name, msg))
			continue
		}
		switch v := t[name]; {
		case v < 0:
			errs = append(errs, field.Invalid(p, v, "is below 0"))
		case v > 100:
			errs = append(errs, field.Invalid(p, v, "is above 100"))
		}
	}
	return errs
}

// ValidatePoints checks a number of percentage points: between 0 and 100.
func ValidatePoints(v float64, path *field.Path) field.ErrorList {
	switch {
	case v < 0:
		return field.ErrorList{field.Invalid(path, v, "is below 0")}
	case v > 100:
		return field.ErrorList{field.Invalid(path, v, "is above 100")}
	}
	return nil
}

// ValidateThresholdPair checks a lower and an upper threshold map: both
// required, each valid, listing the same resources, and (when ordered) the
// upper one at least the lower one.
func ValidateThresholdPair(low, high ResourceThresholds, ordered bool, path *field.Path) field.ErrorList {
	lowPath, highPath := path.Child("thresholds"), path.Child("targetThresholds")
	var errs field.ErrorList
	if len(low) == 0 {
		errs = append(errs, field.Required(lowPath, "list at least one resource, e.g. {cpu: 20, memory: 20, pods: 20}"))
	}
	if len(high) == 0 {
		errs = append(errs, field.Required(highPath, "list the same resources as thresholds, e.g. {cpu: 50, memory: 50, pods: 50}"))
	}
	errs = append(errs, ValidateThresholds(low, lowPath)...)
	errs = append(errs, ValidateThresholds(high, highPath)...)
	if len(low) == 0 || len(high) == 0 {
		return errs
	}
	for _, name := range low.Names() {
		h, ok := high[name]
		if !ok {
			errs = append(errs, field.Required(highPath.Child(name), "thresholds lists "+name))
			continue
		}
		if ordered && h < low[name] {
			errs = append(errs, field.Invalid(highPath.Child(name), h, fmt.Sprintf("is below thresholds.%s (%g)", name, low[name])))
		}
	}
	for _, name := range high.Names() {
		if _, ok := low[name]; !ok {
			errs = append(errs, field.Invalid(highPath.Child(name), high[name], "is not listed in thresholds"))
		}
	}
	return errs
}

// resourceNameProblem returns why name is not a resource a threshold can
// apply to, or "".
func resourceNameProblem(name string) string {
	switch name {
	case "cpu", "memory", "pods", "ephemeral-storage":
		return ""
	case MetricResource:
		return "" // ValidateMetricThresholds says when it may be used
	}
	if strings.HasPrefix(name, "hugepages-") {
		return ""
	}
	if strings.Contains(name, "/") && len(validation.IsQualifiedName(name)) == 0 {
		return "" // an extended resource, such as nvidia.com/gpu
	}
	return "is not a resource name (cpu, memory, pods, ephemeral-storage, hugepages-<size> or an extended resource such as nvidia.com/gpu)"
}
