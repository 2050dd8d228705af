package policy

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateChoices checks that every value of a list is one of allowed and
// appears once.
func ValidateChoices(values, allowed []string, path *field.Path) field.ErrorList {
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

// ValidateNames checks that every value of a list is set and appears once.
func ValidateNames(values []string, what string, path *field.Path) field.ErrorList {
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

// IsTrue reads an optional boolean argument, false when unset.
func IsTrue(b *bool) bool { return b != nil && *b }

// ValidateExitCodes checks that no exit code is listed twice.
func ValidateExitCodes(codes []int32, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := make(map[int32]bool, len(codes))
	for i, c := range codes {
		if seen[c] {
			errs = append(errs, field.Duplicate(path.Index(i), c))
		}
		seen[c] = true
	}
	return errs
}
