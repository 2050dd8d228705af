package interpodantiaffinity

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube-rebalancer/rebalancer/policy"
)

// Args configure RemovePodsViolatingInterPodAntiAffinity, which moves pods
// whose required pod anti-affinity is broken by pods in the same topology
// domain.
type Args struct {
	policy.Common `json:",inline"`
}

// Default fills in unset arguments; there are none to fill.
func (a *Args) Default() {}

// NodeLevelFields: every argument says which pods move.
func (a *Args) NodeLevelFields() []string { return nil }

// Validate reports every invalid argument.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	return a.Common.Validate(path)
}
