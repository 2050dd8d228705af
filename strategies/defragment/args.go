package defragment

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube-rebalancer/rebalancer/policy"
)

// Args configure DefragmentForPendingPods. The common namespaces and
// labelSelector choose the pending pods it serves; evictable chooses the
// running pods it may move for them.
type Args struct {
	policy.Common `json:",inline"`

	// MinPendingAge: a pod is served once kube-scheduler has found it
	// unschedulable for this long (since the PodScheduled condition's
	// lastTransitionTime), so that a pod the cluster autoscaler or a
	// starting node is about to serve is left to them. Default 1m.
	MinPendingAge *metav1.Duration `json:"minPendingAge,omitempty"`
	// MinPriority, when set, serves only pending pods of at least this
	// priority.
	MinPriority *int32 `json:"minPriority,omitempty"`
	// MaxMovesPerPod is the most pods moved to make room for one pending
	// pod, from 1 to 5. Default 3.
	MaxMovesPerPod *int32 `json:"maxMovesPerPod,omitempty"`
}

// The defaults and bounds of the arguments.
const (
	DefaultMinPendingAge  = time.Minute
	DefaultMaxMovesPerPod = 3
	MaxMaxMovesPerPod     = 5
)

// Default fills in unset arguments.
func (a *Args) Default() {
	if a.MinPendingAge == nil {
		a.MinPendingAge = &metav1.Duration{Duration: DefaultMinPendingAge}
	}
	if a.MaxMovesPerPod == nil {
		v := int32(DefaultMaxMovesPerPod)
		a.MaxMovesPerPod = &v
	}
}

// NodeLevelFields: every argument is about pods.
func (a *Args) NodeLevelFields() []string { return nil }

// Validate reports every invalid argument.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.Common.Validate(path)
	if d := a.MinPendingAge; d != nil && d.Duration < 0 {
		errs = append(errs, field.Invalid(path.Child("minPendingAge"), d.Duration.String(), "is negative"))
	}
	if m := a.MaxMovesPerPod; m != nil && (*m < 1 || *m > MaxMaxMovesPerPod) {
		errs = append(errs, field.Invalid(path.Child("maxMovesPerPod"), *m, "is not between 1 and 5 (each move more multiplies the sets of pods the search tries)"))
	}
	return errs
}

// pendingAge returns minPendingAge, defaulted.
func (a *Args) pendingAge() time.Duration {
	if a.MinPendingAge == nil {
		return DefaultMinPendingAge
	}
	return a.MinPendingAge.Duration
}

// maxMoves returns maxMovesPerPod, defaulted.
func (a *Args) maxMoves() int {
	if a.MaxMovesPerPod == nil {
		return DefaultMaxMovesPerPod
	}
	return int(*a.MaxMovesPerPod)
}

// serves reports whether a pending pod of this priority is one the
// arguments serve.
func (a *Args) serves(priority int32) bool {
	return a.MinPriority == nil || priority >= *a.MinPriority
}
