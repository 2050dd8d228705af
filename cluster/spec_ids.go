package cluster

import (
	"encoding/json"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
)

// A pod's node selector, affinity, tolerations and topology spread
// constraints decide which nodes it may go to, and replicas of a workload
// ask the same of every node. Those who keep such answers per spec key
// them by SchedulingSpecID instead of writing the spec out for every pod.

// specIDsIssued numbers the specs of every snapshot lineage in the process,
// so that pods of unrelated snapshots never share an ID.
var specIDsIssued atomic.Uint64

// maxSpecMemory bounds specIDs.byMemory; when full it is emptied, which
// costs writing keys again, never correctness.
const maxSpecMemory = 1 << 16

// specIDs gives the pods of one snapshot lineage (New, its forks and its
// incremental changes) their SchedulingSpecID.
type specIDs struct {
	mu      sync.Mutex
	byValue map[string]uint64
	// byMemory remembers the ID of specs by where their values are in
	// memory: replicas that a decoder made share their values (PodSharer),
	// and a snapshot's objects never change, so the same memory holds the
	// same value and its key need not be written again. The entries keep
	// that memory alive, so it cannot come to hold another value.
	byMemory map[specMemory]specIDPair
}

// specMemory is where a spec's values are in memory.
type specMemory struct {
	selector    unsafe.Pointer
	affinity    *corev1.Affinity
	tolerations *corev1.Toleration
	nTol        int
	spread      *corev1.TopologySpreadConstraint
	nSpread     int
}

func newSpecIDs() *specIDs {
	return &specIDs{byValue: make(map[string]uint64), byMemory: make(map[specMemory]specIDPair)}
}

// specIDPair is a pod's PlacementSpecID and SchedulingSpecID.
type specIDPair struct{ placement, scheduling uint64 }

// of returns the IDs of the pod's spec: equal for equal values.
func (s *specIDs) of(p *corev1.Pod) specIDPair {
	mem := specMemory{
		affinity:    p.Spec.Affinity,
		tolerations: first(p.Spec.Tolerations),
		nTol:        len(p.Spec.Tolerations),
		spread:      first(p.Spec.TopologySpreadConstraints),
		nSpread:     len(p.Spec.TopologySpreadConstraints),
	}
	if p.Spec.NodeSelector != nil {
		mem.selector = reflect.ValueOf(p.Spec.NodeSelector).UnsafePointer()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ids, ok := s.byMemory[mem]; ok {
		return ids
	}
	// The JSON form is canonical: map keys sorted, and empty and absent
	// values alike, as they are to a scheduler.
	var ids specIDPair
	ids.placement = s.byJSON("placement", [3]any{p.Spec.NodeSelector, p.Spec.Affinity, p.Spec.Tolerations})
	ids.scheduling = s.byJSON("scheduling", [2]any{ids.placement, p.Spec.TopologySpreadConstraints})
	if len(s.byMemory) >= maxSpecMemory {
		clear(s.byMemory)
	}
	s.byMemory[mem] = ids
	return ids
}

// byJSON returns the ID of v's JSON form among the IDs of that kind.
func (s *specIDs) byJSON(kind string, v any) uint64 {
	b, err := json.Marshal(v)
	if err != nil {
		// Not reachable for API types; an ID of its own keeps answers
		// correct.
		return specIDsIssued.Add(1)
	}
	key := kind + "\x00" + string(b)
	id, ok := s.byValue[key]
	if !ok {
		id = specIDsIssued.Add(1)
		s.byValue[key] = id
	}
	return id
}

func first[T any](s []T) *T {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

// SchedulingSpecID names the pod's node selector, affinity, tolerations and
// topology spread constraints: two pods of one snapshot, or of snapshots
// forked or changed from one another, have the same ID exactly when those
// values are equal. Pods of unrelated snapshots never have the same ID.
func (p *Pod) SchedulingSpecID() uint64 { return p.specIDs.scheduling }

// PlacementSpecID is SchedulingSpecID without the spread constraints: it
// names what decides which nodes may take the pod at all.
func (p *Pod) PlacementSpecID() uint64 { return p.specIDs.placement }
