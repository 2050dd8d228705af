package failedpods

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube-rebalancer/rebalancer/policy"
)

// DefaultMinFailedPodLifetimeSeconds is how old a failed pod must be before
// RemoveFailedPods removes it, unless the policy says otherwise.
const DefaultMinFailedPodLifetimeSeconds = 3600

// Args configure RemoveFailedPods, which deletes pods in the Failed phase
// through the Eviction API, so that their controllers replace them and they
// stop cluttering the API.
type Args struct {
	policy.Common `json:",inline"`

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
func (a *Args) Default() {
	if a.MinPodLifetimeSeconds == nil {
		a.MinPodLifetimeSeconds = new(int64(DefaultMinFailedPodLifetimeSeconds))
	}
}

// NodeLevelFields: every argument says which pods move.
func (a *Args) NodeLevelFields() []string { return nil }

// IncludesInitContainers reports whether init containers count.
func (a *Args) IncludesInitContainers() bool {
	return policy.IsTrue(a.IncludingInitContainers)
}

// Validate reports every invalid argument.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.Common.Validate(path)
	errs = append(errs, policy.ValidateNames(a.Reasons, "a reason such as OOMKilled", path.Child("reasons"))...)
	errs = append(errs, policy.ValidateNames(a.ExcludeOwnerKinds, "an owner kind such as Job", path.Child("excludeOwnerKinds"))...)
	errs = append(errs, policy.ValidateExitCodes(a.ExitCodes, path.Child("exitCodes"))...)
	if v := a.MinPodLifetimeSeconds; v != nil && *v < 0 {
		errs = append(errs, field.Invalid(path.Child("minPodLifetimeSeconds"), *v, "is negative"))
	}
	return errs
}
