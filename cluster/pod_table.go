package cluster

// PodTable keeps one value per pod of a snapshot, by pod index: what a
// cycle derives once from a pod and asks again in every round. On a large
// cluster a slice read costs a fraction of a map's lookup by the pod's
// address. The zero table is empty; a table serves one snapshot and its
// forks, which hold the same pods, and starts over if it is asked about a
// snapshot with another number of pods.
type PodTable[T any] []podEntry[T]

type podEntry[T any] struct {
	value T
	known bool
}

// Get returns the value kept for the pod, computing it first if there is
// none; a zero value is kept like any other. A pod the snapshot does not
// hold (one made during the cycle) has its value computed every time: kept
// by its index, it would be another pod's.
func (t *PodTable[T]) Get(s *Snapshot, p *Pod, compute func(*Pod) T) T {
	if !s.owns(p) {
		return compute(p)
	}
	if len(*t) != len(s.pods) {
		*t = make(PodTable[T], len(s.pods))
	}
	e := &(*t)[p.id]
	if !e.known {
		e.value, e.known = compute(p), true
	}
	return e.value
}
