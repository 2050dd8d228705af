package maxage

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube-rebalancer/rebalancer/policy"
)

// Name is the strategy's key under strategies: in a policy.
const Name = "PodMaxAge"

// Defaults of the arguments.
const (
	DefaultAnnotation = "rebalancer.dev/max-age"
	DefaultMinMaxAge  = time.Hour
)

// Args are the strategy's arguments in a policy.
type Args struct {
	// Common holds what every strategy accepts: enabled, namespaces,
	// labelSelector, evictable.
	policy.Common `json:",inline"`

	// Annotation is the pod annotation that holds the pod's maximum age, a
	// Go duration such as "24h". Pods without it are left alone.
	Annotation string `json:"annotation,omitempty"`
	// MinMaxAge is the shortest maximum age an annotation may ask for; a
	// shorter one counts as this, so that no workload is made to churn.
	MinMaxAge *metav1.Duration `json:"minMaxAge,omitempty"`
}

// Default fills in the annotation and the floor.
func (a *Args) Default() {
	if a.Annotation == "" {
		a.Annotation = DefaultAnnotation
	}
	if a.MinMaxAge == nil {
		a.MinMaxAge = &metav1.Duration{Duration: DefaultMinMaxAge}
	}
}

// Validate reports every invalid argument under path.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.Common.Validate(path)
	for _, msg := range validation.IsQualifiedName(a.Annotation) {
		errs = append(errs, field.Invalid(path.Child("annotation"), a.Annotation, msg))
	}
	if a.MinMaxAge != nil && a.MinMaxAge.Duration <= 0 {
		errs = append(errs, field.Invalid(path.Child("minMaxAge"), a.MinMaxAge.Duration.String(), "must be positive"))
	}
	return errs
}

// NodeLevelFields: every argument is about pods, so an override may tune
// them per namespace.
func (a *Args) NodeLevelFields() []string { return nil }
