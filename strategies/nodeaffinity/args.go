package nodeaffinity

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube-rebalancer/rebalancer/policy"
)

// The kinds of node affinity RemovePodsViolatingNodeAffinity checks.
const (
	RequiredDuringScheduling  = "requiredDuringSchedulingIgnoredDuringExecution"
	PreferredDuringScheduling = "preferredDuringSchedulingIgnoredDuringExecution"
)

// Args configure RemovePodsViolatingNodeAffinity, which moves pods whose
// node no longer satisfies their node affinity.
type Args struct {
	policy.Common `json:",inline"`

	// NodeAffinityType lists what is checked (required):
	// requiredDuringSchedulingIgnoredDuringExecution moves a pod whose node
	// no longer matches its nodeSelector or required node affinity;
	// preferredDuringSchedulingIgnoredDuringExecution moves a pod when
	// another node that can take it matches its preferred terms with a
	// strictly higher total weight.
	NodeAffinityType []string `json:"nodeAffinityType,omitempty"`
}

// Default fills in unset arguments; nodeAffinityType has no default, as in
// the descheduler.
func (a *Args) Default() {}

// NodeLevelFields: every argument says which pods move.
func (a *Args) NodeLevelFields() []string { return nil }

// Checks reports whether the strategy checks the given kind of affinity.
func (a *Args) Checks(kind string) bool {
	return slices.Contains(a.NodeAffinityType, kind)
}

// Validate reports every invalid argument.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.Common.Validate(path)
	p := path.Child("nodeAffinityType")
	if len(a.NodeAffinityType) == 0 {
		errs = append(errs, field.Required(p, "list "+RequiredDuringScheduling+", "+PreferredDuringScheduling+" or both"))
	}
	return append(errs, policy.ValidateChoices(a.NodeAffinityType, []string{RequiredDuringScheduling, PreferredDuringScheduling}, p)...)
}
