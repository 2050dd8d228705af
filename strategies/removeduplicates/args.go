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
	return errs
}
