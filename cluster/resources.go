package cluster

import (
	"maps"
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// Resources is an amount of each schedulable resource, in the integer units
// the scheduler compares: millicores of CPU, bytes of memory and ephemeral
// storage, a count of pods, and the integer value of every other (extended or
// hugepages) resource. Integer fields keep the per-node arithmetic of a
// placement free of allocations, which resource.Quantity is not.
type Resources struct {
	MilliCPU         int64
	Memory           int64
	EphemeralStorage int64
	Pods             int64
	// Scalar holds every other resource by name; nil when there is none.
	Scalar map[corev1.ResourceName]int64
}

// ResourcesFromList converts a ResourceList into Resources.
func ResourcesFromList(list corev1.ResourceList) Resources {
	var r Resources
	for name, q := range list {
		switch name {
		case corev1.ResourceCPU:
			r.MilliCPU = q.MilliValue()
		case corev1.ResourceMemory:
			r.Memory = q.Value()
		case corev1.ResourceEphemeralStorage:
			r.EphemeralStorage = q.Value()
		case corev1.ResourcePods:
			r.Pods = q.Value()
		default:
			if r.Scalar == nil {
				r.Scalar = make(map[corev1.ResourceName]int64)
			}
			r.Scalar[name] = q.Value()
		}
	}
	return r
}

// Get returns the amount of one resource, in the units described on Resources.
func (r *Resources) Get(name corev1.ResourceName) int64 {
	switch name {
	case corev1.ResourceCPU:
		return r.MilliCPU
	case corev1.ResourceMemory:
		return r.Memory
	case corev1.ResourceEphemeralStorage:
		return r.EphemeralStorage
	case corev1.ResourcePods:
		return r.Pods
	default:
		return r.Scalar[name]
	}
}

// Add adds o to r.
func (r *Resources) Add(o *Resources) {
	r.MilliCPU += o.MilliCPU
	r.Memory += o.Memory
	r.EphemeralStorage += o.EphemeralStorage
	r.Pods += o.Pods
	if len(o.Scalar) == 0 {
		return
	}
	if r.Scalar == nil {
		r.Scalar = make(map[corev1.ResourceName]int64, len(o.Scalar))
	}
	for name, v := range o.Scalar {
		r.Scalar[name] += v
	}
}

// Sub subtracts o from r.
func (r *Resources) Sub(o *Resources) {
	r.MilliCPU -= o.MilliCPU
	r.Memory -= o.Memory
	r.EphemeralStorage -= o.EphemeralStorage
	r.Pods -= o.Pods
	for name, v := range o.Scalar {
		if r.Scalar == nil {
			r.Scalar = make(map[corev1.ResourceName]int64, len(o.Scalar))
		}
		r.Scalar[name] -= v
	}
}

// Clone returns a copy of r that shares nothing with it.
func (r Resources) Clone() Resources {
	r.Scalar = maps.Clone(r.Scalar)
	return r
}

// Names returns the resources r holds a non-zero amount of, sorted, so that
// output and iteration order never depend on map order.
func (r *Resources) Names() []corev1.ResourceName {
	var names []corev1.ResourceName
	for _, n := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourcePods} {
		if r.Get(n) != 0 {
			names = append(names, n)
		}
	}
	scalars := make([]corev1.ResourceName, 0, len(r.Scalar))
	for n, v := range r.Scalar {
		if v != 0 {
			scalars = append(scalars, n)
		}
	}
	sort.Slice(scalars, func(i, j int) bool { return scalars[i] < scalars[j] })
	return append(names, scalars...)
}
