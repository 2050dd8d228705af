package podlifetime

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube-rebalancer/rebalancer/policy"
)

// Args configure PodLifeTime, which moves pods older than a maximum age, or
// in given states or conditions, oldest first. Every filter that is set
// must match (and); within one, any entry does (or), as in the descheduler.
type Args struct {
	policy.Common `json:",inline"`

	// MaxPodLifeTimeSeconds: pods older than this move.
	MaxPodLifeTimeSeconds *int64 `json:"maxPodLifeTimeSeconds,omitempty"`
	// States, when set, moves only pods in one of these states: a phase, a
	// pod status reason, or the reason a container is waiting or
	// terminated.
	States []string `json:"states,omitempty"`
	// Conditions, when set, moves only pods with a status condition that
	// one of these filters matches.
	Conditions []PodConditionFilter `json:"conditions,omitempty"`
	// ExitCodes, when set, moves only pods with a container that
	// terminated with one of these codes.
	ExitCodes []int32 `json:"exitCodes,omitempty"`
	// OwnerKinds includes or excludes pods by the kinds of their owners.
	OwnerKinds *OwnerKinds `json:"ownerKinds,omitempty"`
	// IncludingInitContainers matches states and exit codes against the
	// init containers too (default false).
	IncludingInitContainers *bool `json:"includingInitContainers,omitempty"`
	// IncludingEphemeralContainers matches states against the ephemeral
	// containers too (default false).
	IncludingEphemeralContainers *bool `json:"includingEphemeralContainers,omitempty"`
}

// PodConditionFilter matches a pod's status condition: every field that is
// set must match. With minTimeSinceLastTransitionSeconds the condition
// must also have changed at least that long ago.
type PodConditionFilter struct {
	Type                              string `json:"type,omitempty"`
	Status                            string `json:"status,omitempty"`
	Reason                            string `json:"reason,omitempty"`
	MinTimeSinceLastTransitionSeconds *int64 `json:"minTimeSinceLastTransitionSeconds,omitempty"`
}

// OwnerKinds selects pods by the kinds of their owner references: with
// include, only pods with an owner of one of the kinds; with exclude, only
// pods with none. At most one of them is set.
type OwnerKinds struct {
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
}

// LifeTimeStates are the values states accepts, as the descheduler accepts
// them: pod phases, pod status reasons, container waiting reasons and
// container terminated reasons.
var LifeTimeStates = []string{
	"Running", "Pending", "Succeeded", "Failed", "Unknown",
	"NodeAffinity", "NodeLost", "Shutdown", "UnexpectedAdmissionError",
	"PodInitializing", "ContainerCreating",
	"ImagePullBackOff", "CrashLoopBackOff", "CreateContainerConfigError", "ErrImagePull", "CreateContainerError", "InvalidImageName",
	"OOMKilled", "Error", "Completed", "DeadlineExceeded", "Evicted", "ContainerCannotRun", "StartError",
}

// Default fills in unset arguments; PodLifeTime has none to fill, as in
// the descheduler.
func (a *Args) Default() {}

// NodeLevelFields: every argument says which pods move.
func (a *Args) NodeLevelFields() []string { return nil }

// IncludesInitContainers reports whether init containers' states and exit
// codes count.
func (a *Args) IncludesInitContainers() bool { return policy.IsTrue(a.IncludingInitContainers) }

// IncludesEphemeralContainers reports whether ephemeral containers' states
// count.
func (a *Args) IncludesEphemeralContainers() bool {
	return policy.IsTrue(a.IncludingEphemeralContainers)
}

// Validate reports every invalid argument.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.Common.Validate(path)
	switch p, v := path.Child("maxPodLifeTimeSeconds"), a.MaxPodLifeTimeSeconds; {
	case v == nil:
		if len(a.States) == 0 && len(a.Conditions) == 0 && len(a.ExitCodes) == 0 {
			errs = append(errs, field.Required(p, "the age in seconds past which pods move, e.g. 86400 for a day, or states, conditions or exitCodes"))
		}
	case *v < 0:
		errs = append(errs, field.Invalid(p, *v, "is negative"))
	case *v == 0:
		errs = append(errs, field.Invalid(p, *v, "would move every pod, and its replacement, on every run; give an age in seconds, e.g. 86400"))
	}
	errs = append(errs, policy.ValidateChoices(a.States, LifeTimeStates, path.Child("states"))...)
	for i, c := range a.Conditions {
		cp := path.Child("conditions").Index(i)
		if c.Type == "" && c.Status == "" && c.Reason == "" && c.MinTimeSinceLastTransitionSeconds == nil {
			errs = append(errs, field.Required(cp, "at least one of type, status, reason or minTimeSinceLastTransitionSeconds"))
		}
		if c.Status != "" && c.Status != "True" && c.Status != "False" && c.Status != "Unknown" {
			errs = append(errs, field.NotSupported(cp.Child("status"), c.Status, []string{"True", "False", "Unknown"}))
		}
		if v := c.MinTimeSinceLastTransitionSeconds; v != nil && *v < 0 {
			errs = append(errs, field.Invalid(cp.Child("minTimeSinceLastTransitionSeconds"), *v, "is negative"))
		}
	}
	errs = append(errs, policy.ValidateExitCodes(a.ExitCodes, path.Child("exitCodes"))...)
	return append(errs, a.OwnerKinds.validate(path.Child("ownerKinds"))...)
}

func (o *OwnerKinds) validate(path *field.Path) field.ErrorList {
	if o == nil {
		return nil
	}
	var errs field.ErrorList
	if len(o.Include) > 0 && len(o.Exclude) > 0 {
		errs = append(errs, field.Forbidden(path, "set include or exclude, not both"))
	}
	errs = append(errs, policy.ValidateNames(o.Include, "an owner kind such as Job", path.Child("include"))...)
	return append(errs, policy.ValidateNames(o.Exclude, "an owner kind such as Job", path.Child("exclude"))...)
}
