package policy

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The whenUnsatisfiable values of a topology spread constraint.
const (
	DoNotSchedule  = "DoNotSchedule"
	ScheduleAnyway = "ScheduleAnyway"
)

// RemovePodsViolatingTopologySpreadConstraintArgs configure
// RemovePodsViolatingTopologySpreadConstraint, which moves the fewest pods
// that bring each workload's topology spread constraints back within their
// maxSkew.
type RemovePodsViolatingTopologySpreadConstraintArgs struct {
	Common `json:",inline"`

	// Constraints lists the kinds of constraint (whenUnsatisfiable) that are
	// balanced: DoNotSchedule, ScheduleAnyway or both. Default
	// [DoNotSchedule].
	Constraints []string `json:"constraints,omitempty"`
}

// Default sets the constraints to [DoNotSchedule] when unset.
func (a *RemovePodsViolatingTopologySpreadConstraintArgs) Default() {
	if len(a.Constraints) == 0 {
		a.Constraints = []string{DoNotSchedule}
	}
}

// NodeLevelFields: every argument says which pods move.
func (a *RemovePodsViolatingTopologySpreadConstraintArgs) NodeLevelFields() []string { return nil }

// Balances reports whether constraints with this whenUnsatisfiable are
// balanced.
func (a *RemovePodsViolatingTopologySpreadConstraintArgs) Balances(whenUnsatisfiable string) bool {
	return contains(a.Constraints, whenUnsatisfiable)
}

// Validate reports every invalid argument.
func (a *RemovePodsViolatingTopologySpreadConstraintArgs) Validate(path *field.Path) field.ErrorList {
	errs := a.Common.Validate(path)
	return append(errs, validateChoices(a.Constraints, []string{DoNotSchedule, ScheduleAnyway}, path.Child("constraints"))...)
}
