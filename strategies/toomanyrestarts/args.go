package toomanyrestarts

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube-rebalancer/rebalancer/policy"
)

// Args configure RemovePodsHavingTooManyRestarts, which moves pods whose
// containers keep restarting (a volume that does not attach on that node, a
// crash loop).
type Args struct {
	policy.Common `json:",inline"`

	// PodRestartThreshold is the number of restarts, summed over the pod's
	// containers, at which it moves (required, at least 1).
	PodRestartThreshold int32 `json:"podRestartThreshold,omitempty"`
	// IncludingInitContainers counts the restarts of init containers too
	// (default false).
	IncludingInitContainers *bool `json:"includingInitContainers,omitempty"`
	// States, when set, moves only pods in one of these states: the phase
	// Running, or a container waiting in CrashLoopBackOff.
	States []string `json:"states,omitempty"`
}

// RestartStates are the values states accepts.
var RestartStates = []string{"CrashLoopBackOff", "Running"}

// Default fills in unset arguments; podRestartThreshold has no default, as
// in the descheduler.
func (a *Args) Default() {}

// NodeLevelFields: every argument says which pods move.
func (a *Args) NodeLevelFields() []string { return nil }

// IncludesInitContainers reports whether init containers count.
func (a *Args) IncludesInitContainers() bool {
	return policy.IsTrue(a.IncludingInitContainers)
}

// Validate reports every invalid argument.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.Common.Validate(path)
	switch p := path.Child("podRestartThreshold"); {
	case a.PodRestartThreshold == 0:
		errs = append(errs, field.Required(p, "the number of restarts at which a pod moves, at least 1"))
	case a.PodRestartThreshold < 1:
		errs = append(errs, field.Invalid(p, a.PodRestartThreshold, "is below 1"))
	}
	return append(errs, policy.ValidateChoices(a.States, RestartStates, path.Child("states"))...)
}
