package policy

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DefaultMinFailedPodLifetimeSeconds is how old a failed pod must be before
// RemoveFailedPods removes it, unless the policy says otherwise.
const DefaultMinFailedPodLifetimeSeconds = 3600

// RemoveFailedPodsArgs configure RemoveFailedPods, which deletes pods in the
// Failed phase through the Eviction API, so that their controllers replace
// them and they stop cluttering the API.
type RemoveFailedPodsArgs struct {
	Common `json:",inline"`

	// Reasons, when set, removes only pods that failed for one of these
	// reasons: the pod's status reason (Evicted, NodeAffinity, …) or a
	// container's waiting or terminated reason (OOMKilled, Error, …).
	Reasons []string `json:"reasons,omitempty"`
	// ExitCodes, when set, removes only pods with a container that
	// terminated with one of these exit codes.
	ExitCodes []int32 `json:"exitCodes,omitempty"`
	// ExcludeOwnerKinds leaves alone pods with an owner of one of these
	// kinds (for example Job, whose failed pods record its history).
	ExcludeOwnerKinds []string `json:"excludeOwnerKinds,omitempty"`
	// MinPodLifetimeSeconds: only pods at least this old, in whole seconds,
	// are removed (default 3600).
	MinPodLifetimeSeconds *int64 `json:"minPodLifetimeSeconds,omitempty"`
	// IncludingInitContainers matches reasons and exit codes against init
	// containers too (default false).
	IncludingInitContainers *bool `json:"includingInitContainers,omitempty"`
}

// Default sets minPodLifetimeSeconds to 3600 when unset.
func (a *RemoveFailedPodsArgs) Default() {
	if a.MinPodLifetimeSeconds == nil {
		a.MinPodLifetimeSeconds = new(int64(DefaultMinFailedPodLifetimeSeconds))
	}
}

// NodeLevelFields: every argument says which pods move.
func (a *RemoveFailedPodsArgs) NodeLevelFields() []string { return nil }

// IncludesInitContainers reports whether init containers count.
func (a *RemoveFailedPodsArgs) IncludesInitContainers() bool {
	return isTrue(a.IncludingInitContainers)
}

// Validate reports every invalid argument.
func (a *RemoveFailedPodsArgs) Validate(path *field.Path) field.ErrorList {
	errs := a.Common.Validate(path)
	errs = append(errs, validateNames(a.Reasons, "a reason such as OOMKilled", path.Child("reasons"))...)
	errs = append(errs, validateNames(a.ExcludeOwnerKinds, "an owner kind such as Job", path.Child("excludeOwnerKinds"))...)
	errs = append(errs, validateExitCodes(a.ExitCodes, path.Child("exitCodes"))...)
	if v := a.MinPodLifetimeSeconds; v != nil && *v < 0 {
		errs = append(errs, field.Invalid(path.Child("minPodLifetimeSeconds"), *v, "is negative"))
	}
	return errs
}
