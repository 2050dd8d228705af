package cluster

import (
	"errors"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
)

// Eviction is what rebalancer remembers of one of its evictions between
// cycles: enough for the planner's cooldown and for the live scheduler to
// place the replacement where the plan said, and never back where the pod
// came from.
type Eviction struct {
	Pod string `json:"pod"`
	// UID is the evicted pod's, so that a later run can tell an eviction
	// that never happened (the pod is still there) from a replacement that
	// took the same name (a StatefulSet's pod). Empty in entries written
	// before it was recorded.
	UID      types.UID `json:"uid,omitempty"`
	Workload Workload  `json:"workload"`
	From     string    `json:"from"`
	To       string    `json:"to,omitempty"`
	Strategy string    `json:"strategy"`
	At       time.Time `json:"at"`
	// Surge marks a make-before-break move: the replacement is created
	// while the pod still runs, so the scheduler steers it to To at once
	// rather than once the pod has left.
	Surge bool `json:"surge,omitempty"`
}

// ID identifies a recorded eviction: its pod and when it was recorded.
func (e Eviction) ID() string { return e.Pod + "@" + e.At.UTC().Format(time.RFC3339Nano) }

// ManagedByLabel, set to ManagedBy, marks the state ConfigMap, so that it
// can be found in a cluster dump.
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedBy      = "rebalancer"
)

// Evictions returns the eviction history held by the state ConfigMaps of a
// dump, oldest first. A state that cannot be used is left out with a
// warning, as a run leaves it out: the plan of a dump and a dry run of the
// same cluster agree.
func (o *Objects) Evictions() ([]Eviction, error) {
	var all []Eviction
	for i := range o.StateConfigMaps {
		evs, err := DecodeEvictions(&o.StateConfigMaps[i])
		var bad *StateError
		if errors.As(err, &bad) {
			klog.Warningf("%v; the plan ignores its evictions (no cooldown from them)", err)
			continue
		}
		if err != nil {
			return nil, err
		}
		all = append(all, evs...)
	}
	slices.SortStableFunc(all, func(a, b Eviction) int { return a.At.Compare(b.At) })
	return all, nil
}
