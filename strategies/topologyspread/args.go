package topologyspread

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube-rebalancer/rebalancer/policy"
)

// The whenUnsatisfiable values of a topology spread constraint.
const (
	DoNotSchedule  = "DoNotSchedule"
	ScheduleAnyway = "ScheduleAnyway"
)

// Args configure RemovePodsViolatingTopologySpreadConstraint, which moves
// the fewest pods that bring each workload's topology spread constraints
// back within their maxSkew.
type Args struct {
	policy.Common `json:",inline"`

	// Constraints lists the kinds of constraint (whenUnsatisfiable) that are
	// balanced: DoNotSchedule, ScheduleAnyway or both. Default
	// [DoNotSchedule].
	Constraints []string `json:"constraints,omitempty"`
	// MinImprovement: a constraint past its maxSkew is balanced only when
	// the moves the strategy would make lower its skew by at least this
	// much. 0 balances every constraint past its maxSkew.
	MinImprovement int32 `json:"minImprovement,omitempty"`
}

// Default sets the constraints to [DoNotSchedule] when unset.
func (a *Args) Default() {
	if len(a.Constraints) == 0 {
		a.Constraints = []string{DoNotSchedule}
	}
}

// NodeLevelFields: every argument says which pods move.
func (a *Args) NodeLevelFields() []string { return nil }

// Balances reports whether constraints with this whenUnsatisfiable are
// balanced.
func (a *Args) Balances(whenUnsatisfiable string) bool {
	return slices.Contains(a.Constraints, whenUnsatisfiable)
}

// Validate reports every invalid argument.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.Common.Validate(path)
	errs = append(errs, policy.ValidateChoices(a.Constraints, []string{DoNotSchedule, ScheduleAnyway}, path.Child("constraints"))...)
	if a.MinImprovement < 0 {
		errs = append(errs, field.Invalid(path.Child("minImprovement"), a.MinImprovement, "is negative"))
	}
	return errs
}
