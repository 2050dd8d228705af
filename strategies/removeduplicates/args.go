package removeduplicates

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube-rebalancer/rebalancer/policy"
)

// Args configure RemoveDuplicates, which spreads the pods of one workload
// that pile up on one node.
type Args struct {
	policy.Common `json:",inline"`

	// ExcludeOwnerKinds leaves alone the pods whose controller is of one of
	// these kinds (for example ReplicaSet or StatefulSet).
	ExcludeOwnerKinds []string `json:"excludeOwnerKinds,omitempty"`
	// MinImprovement: a node's extra duplicates move only when it holds at
	// least this many more than its share, so that the moves lower its
	// count by at least this much. 0 moves any extra one.
	MinImprovement int32 `json:"minImprovement,omitempty"`
}

// Default fills in unset arguments; RemoveDuplicates has none to fill.
func (a *Args) Default() {}

// NodeLevelFields: every argument of RemoveDuplicates is about pods.
func (a *Args) NodeLevelFields() []string { return nil }

// Validate reports every invalid argument.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.Common.Validate(path)
	for i, k := range a.ExcludeOwnerKinds {
		if k == "" {
			errs = append(errs, field.Required(path.Child("excludeOwnerKinds").Index(i), "an owner kind such as ReplicaSet"))
		}
	}
	if a.MinImprovement < 0 {
		errs = append(errs, field.Invalid(path.Child("minImprovement"), a.MinImprovement, "is negative"))
	}
	return errs
}
