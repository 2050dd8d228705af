package policy

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// RemovePodsViolatingInterPodAntiAffinityArgs configure
// RemovePodsViolatingInterPodAntiAffinity, which moves pods whose required
// pod anti-affinity is broken by pods in the same topology domain.
type RemovePodsViolatingInterPodAntiAffinityArgs struct {
	Common `json:",inline"`
}

// Default fills in unset arguments; there are none to fill.
func (a *RemovePodsViolatingInterPodAntiAffinityArgs) Default() {}

// NodeLevelFields: every argument says which pods move.
func (a *RemovePodsViolatingInterPodAntiAffinityArgs) NodeLevelFields() []string { return nil }

// Validate reports every invalid argument.
func (a *RemovePodsViolatingInterPodAntiAffinityArgs) Validate(path *field.Path) field.ErrorList {
	return a.Common.Validate(path)
}
