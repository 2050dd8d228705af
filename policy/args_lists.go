package policy

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateChoices checks that every value of a list is one of allowed and
// appears once.
func validateChoices(values, allowed []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := make(map[string]bool, len(values))
	for i, v := range values {
		if !contains(allowed, v) {
			errs = append(errs, field.NotSupported(path.Index(i), v, allowed))
		} else if seen[v] {
			errs = append(errs, field.Duplicate(path.Index(i), v))
		}
		seen[v] = true
	}
	return errs
}

// validateNames checks that every value of a list is set and appears once.
func validateNames(values []string, what string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := make(map[string]bool, len(values))
	for i, v := range values {
		switch {
		case v == "":
			errs = append(errs, field.Required(path.Index(i), what))
		case seen[v]:
			errs = append(errs, field.Duplicate(path.Index(i), v))
		}
		seen[v] = true
	}
	return errs
}

// isTrue reads an optional boolean argument, false when unset.
func isTrue(b *bool) bool { return b != nil && *b }
