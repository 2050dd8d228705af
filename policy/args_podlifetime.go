package policy

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// PodLifeTimeArgs configure PodLifeTime, which moves pods older than a
// maximum age, oldest first.
type PodLifeTimeArgs struct {
	Common `json:",inline"`

	// MaxPodLifeTimeSeconds: pods older than this move (required).
	MaxPodLifeTimeSeconds *int64 `json:"maxPodLifeTimeSeconds,omitempty"`
	// States, when set, moves only pods in one of these states: a phase, a
	// pod status reason, or the reason a container is waiting.
	States []string `json:"states,omitempty"`
	// IncludingInitContainers matches states against the init containers'
	// waiting reasons too (default false).
	IncludingInitContainers *bool `json:"includingInitContainers,omitempty"`
}

// LifeTimeStates are the values states accepts, as the descheduler accepts
// them: pod phases, pod status reasons, and container waiting reasons.
var LifeTimeStates = []string{
	"Running", "Pending", "Succeeded", "Failed", "Unknown",
	"NodeAffinity", "NodeLost", "Shutdown", "UnexpectedAdmissionError",
	"PodInitializing", "ContainerCreating",
	"ImagePullBackOff", "CrashLoopBackOff", "CreateContainerConfigError", "ErrImagePull", "CreateContainerError", "InvalidImageName",
}

// Default fills in unset arguments; maxPodLifeTimeSeconds has no default,
// as in the descheduler.
func (a *PodLifeTimeArgs) Default() {}

// NodeLevelFields: every argument says which pods move.
func (a *PodLifeTimeArgs) NodeLevelFields() []string { return nil }

// IncludesInitContainers reports whether init containers' states count.
func (a *PodLifeTimeArgs) IncludesInitContainers() bool { return isTrue(a.IncludingInitContainers) }

// Validate reports every invalid argument.
func (a *PodLifeTimeArgs) Validate(path *field.Path) field.ErrorList {
	errs := a.Common.validate(path)
	switch p, v := path.Child("maxPodLifeTimeSeconds"), a.MaxPodLifeTimeSeconds; {
	case v == nil:
		errs = append(errs, field.Required(p, "the age in seconds past which pods move, e.g. 86400 for a day"))
	case *v < 0:
		errs = append(errs, field.Invalid(p, *v, "is negative"))
	case *v == 0:
		errs = append(errs, field.Invalid(p, *v, "would move every pod, and its replacement, on every run; give an age in seconds, e.g. 86400"))
	}
	return append(errs, validateChoices(a.States, LifeTimeStates, path.Child("states"))...)
}
