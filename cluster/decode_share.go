package cluster

import (
	"encoding/binary"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The pods of one workload carry the same labels, containers, tolerations,
// affinity, spread constraints and owner references, and every pod repeats
// the same few words (its namespace, phase, condition types). Decoded one
// by one, each pod holds its own copy of all of them: most of a snapshot's
// memory. A dump is decoded once and a snapshot never writes to its pods
// (what-if edits move pods between nodes; a pod that is changed, as place
// defaults one, is a deep copy), so a decoder shares what is equal: each
// pod points to the first copy of an equal value that an earlier pod
// holds, and the duplicate becomes garbage before the next object is read.

// sharer holds the values shared so far in one decoding. Values are found
// by their JSON form and shared only when they are deeply equal, so that
// no pod reads another value than its own.
type sharer struct {
	// json is a decoding of JSON, whose objects are checked for a key set
	// twice (YAML's are, as they are converted).
	json   bool
	strs   map[string]string
	labels map[string]map[string]string
	values map[reflect.Type]map[string]any
	// ptrs holds the first pointer to each value, by the value (its type
	// is part of the key).
	ptrs map[any]any
	key  []byte
	// A dump lists the pods of a workload one after another (kubectl
	// sorts them by name), so the value shared last is most often the one
	// to share next: compared first, it spares writing the key. last holds
	// it by type, lastMaps by the use of the map.
	last     map[reflect.Type]any
	lastMaps [mapUses]map[string]string
	// encoded holds the values shared by their protobuf bytes (see
	// ShareEncoded).
	encoded [encodedFields]byEncoding
}

// The uses of a string map, each with the map it shared last.
const (
	labelsMap = iota
	annotationsMap
	nodeSelectorMap
	mapUses
)

func newSharer() *sharer {
	return &sharer{
		strs:   make(map[string]string),
		labels: make(map[string]map[string]string),
		values: make(map[reflect.Type]map[string]any),
		ptrs:   make(map[any]any),
		last:   make(map[reflect.Type]any),
	}
}

// str returns the first copy of s.
func (s *sharer) str(p *string) {
	if *p == "" {
		return
	}
	if v, ok := s.strs[*p]; ok {
		*p = v
		return
	}
	s.strs[*p] = *p
}

// stringMap returns the first map equal to m; its keys and values are
// shared words too.
func (s *sharer) stringMap(m map[string]string, use int) map[string]string {
	if len(m) == 0 {
		return m
	}
	if last := s.lastMaps[use]; maps.Equal(last, m) {
		return last
	}
	shared := s.stringMapByKey(m)
	s.lastMaps[use] = shared
	return shared
}

func (s *sharer) stringMapByKey(m map[string]string) map[string]string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	s.key = s.key[:0]
	for _, k := range keys {
		s.key = append(s.key, k...)
		s.key = append(s.key, 0)
		s.key = append(s.key, m[k]...)
		s.key = append(s.key, 0)
	}
	if v, ok := s.labels[string(s.key)]; ok {
		return v
	}
	out := make(map[string]string, len(m))
	for _, k := range keys {
		v := m[k]
		s.str(&k)
		s.str(&v)
		out[k] = v
	}
	s.labels[string(s.key)] = out
	return out
}

// share returns the first value deeply equal to v, found by its JSON form.
func share[T any](s *sharer, v T) T {
	t := reflect.TypeFor[T]()
	if last, ok := s.last[t].(T); ok && reflect.DeepEqual(last, v) {
		return last
	}
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	shared := shareByKey(s, data, v)
	s.last[t] = shared
	return shared
}

// shareByKey returns the first value deeply equal to v among those stored
// under key. A type's values are all found by one kind of key: equal
// values have equal keys, and unequal ones that have equal keys are told
// apart, the later one kept as it is.
func shareByKey[T any](s *sharer, key []byte, v T) T {
	byKey := s.values[reflect.TypeFor[T]()]
	if byKey == nil {
		byKey = make(map[string]any)
		s.values[reflect.TypeFor[T]()] = byKey
	}
	if old, ok := byKey[string(key)]; ok {
		if o := old.(T); reflect.DeepEqual(o, v) {
			return o
		}
		return v
	}
	byKey[string(key)] = v
	return v
}

// Conditions and container statuses differ from pod to pod mostly in
// their times: keyed by what tells them apart, written without encoding
// them as JSON, which would double what sharing a pod costs.

func (s *sharer) conditions(list []corev1.PodCondition) []corev1.PodCondition {
	k := s.key[:0]
	for i := range list {
		c := &list[i]
		k = appendWords(k, string(c.Type), string(c.Status), c.Reason, c.Message)
		k = appendTimes(k, c.ObservedGeneration, c.LastProbeTime.Time, c.LastTransitionTime.Time)
	}
	s.key = k
	return shareByKey(s, k, list)
}

func (s *sharer) containerStatuses(list []corev1.ContainerStatus) []corev1.ContainerStatus {
	k := s.key[:0]
	for i := range list {
		cs := &list[i]
		started := int64(-1)
		if cs.Started != nil && *cs.Started {
			started = 1
		} else if cs.Started != nil {
			started = 0
		}
		k = appendWords(k, cs.Name, cs.Image, cs.ImageID, cs.ContainerID)
		k = appendTimes(k, int64(cs.RestartCount), time.Time{}, time.Time{})
		k = append(k, byte(started+1))
		if cs.Ready {
			k = append(k, 1)
		}
		k = appendState(k, &cs.State)
		k = appendState(k, &cs.LastTerminationState)
	}
	s.key = k
	return shareByKey(s, k, list)
}

func appendState(k []byte, st *corev1.ContainerState) []byte {
	switch {
	case st.Running != nil:
		k = append(k, 'r')
		k = appendTimes(k, 0, st.Running.StartedAt.Time, time.Time{})
	case st.Waiting != nil:
		k = append(k, 'w')
		k = appendWords(k, st.Waiting.Reason, st.Waiting.Message)
	case st.Terminated != nil:
		t := st.Terminated
		k = append(k, 't')
		k = appendWords(k, t.Reason, t.Message, t.ContainerID)
		k = appendTimes(k, int64(t.ExitCode)<<32|int64(uint32(t.Signal)), t.StartedAt.Time, t.FinishedAt.Time)
	default:
		k = append(k, '-')
	}
	return k
}

func appendWords(k []byte, words ...string) []byte {
	for _, w := range words {
		k = binary.AppendUvarint(k, uint64(len(w)))
		k = append(k, w...)
	}
	return k
}

func appendTimes(k []byte, n int64, a, b time.Time) []byte {
	k = binary.AppendVarint(k, n)
	for _, t := range []time.Time{a, b} {
		k = binary.AppendVarint(k, t.Unix())
		k = binary.AppendVarint(k, int64(t.Nanosecond()))
	}
	return k
}

// pod shares what a trimmed pod holds in common with the pods decoded
// before it; enc, when known, holds the bytes its fields were decoded from.
func (s *sharer) pod(p *corev1.Pod, enc *podEncoding) {
	if enc == nil {
		enc = &podEncoding{}
	}
	s.meta(&p.ObjectMeta, enc[encOwnerReferences])
	spec := &p.Spec
	if len(spec.InitContainers) > 0 {
		spec.InitContainers = shareEncoded(s, encInitContainers, enc[encInitContainers], spec.InitContainers)
	}
	if len(spec.Containers) > 0 {
		spec.Containers = shareEncoded(s, encContainers, enc[encContainers], spec.Containers)
	}
	if len(spec.Tolerations) > 0 {
		spec.Tolerations = shareEncoded(s, encTolerations, enc[encTolerations], spec.Tolerations)
	}
	if spec.Affinity != nil {
		spec.Affinity = shareEncoded(s, encAffinity, enc[encAffinity], spec.Affinity)
	}
	if len(spec.TopologySpreadConstraints) > 0 {
		spec.TopologySpreadConstraints = shareEncoded(s, encSpread, enc[encSpread], spec.TopologySpreadConstraints)
	}
	if spec.SecurityContext != nil {
		spec.SecurityContext = shareEncoded(s, encSecurityContext, enc[encSecurityContext], spec.SecurityContext)
	}
	spec.NodeSelector = s.stringMap(spec.NodeSelector, nodeSelectorMap)
	spec.PreemptionPolicy = sharePtr(s, spec.PreemptionPolicy)
	spec.Priority = sharePtr(s, spec.Priority)
	spec.EnableServiceLinks = sharePtr(s, spec.EnableServiceLinks)
	spec.TerminationGracePeriodSeconds = sharePtr(s, spec.TerminationGracePeriodSeconds)
	spec.AutomountServiceAccountToken = sharePtr(s, spec.AutomountServiceAccountToken)
	if len(spec.Overhead) > 0 {
		spec.Overhead = shareEncoded(s, encOverhead, enc[encOverhead], spec.Overhead)
	}
	for _, f := range []*string{
		&spec.NodeName, &spec.SchedulerName, &spec.ServiceAccountName, &spec.DeprecatedServiceAccount,
		&spec.PriorityClassName, (*string)(&spec.RestartPolicy), (*string)(&spec.DNSPolicy),
	} {
		s.str(f)
	}
	for i := range spec.Volumes {
		s.str(&spec.Volumes[i].Name)
	}
	st := &p.Status
	s.str((*string)(&st.Phase))
	s.str((*string)(&st.QOSClass))
	st.StartTime = sharePtr(s, st.StartTime)
	// Pods that started in the same second went through the same
	// conditions at the same times: once trimmed, their conditions and
	// container statuses are equal.
	if len(st.Conditions) > 0 {
		for i := range st.Conditions {
			c := &st.Conditions[i]
			s.str((*string)(&c.Type))
			s.str((*string)(&c.Status))
			s.str(&c.Reason)
		}
		st.Conditions = s.conditions(st.Conditions)
	}
	for _, list := range []*[]corev1.ContainerStatus{&st.InitContainerStatuses, &st.ContainerStatuses, &st.EphemeralContainerStatuses} {
		if len(*list) == 0 {
			continue
		}
		for i := range *list {
			cs := &(*list)[i]
			s.str(&cs.Name)
			s.str(&cs.Image)
			if w := cs.State.Waiting; w != nil {
				s.str(&w.Reason)
			}
			if t := cs.State.Terminated; t != nil {
				s.str(&t.Reason)
			}
			if t := cs.LastTerminationState.Terminated; t != nil {
				s.str(&t.Reason)
			}
		}
		*list = s.containerStatuses(*list)
	}
}

// sharePtr returns the first pointer to a value equal to *p.
func sharePtr[T comparable](s *sharer, p *T) *T {
	if p == nil {
		return nil
	}
	if old, ok := s.ptrs[*p]; ok {
		return old.(*T)
	}
	s.ptrs[*p] = p
	return p
}

// meta shares an object's words, labels and owner references.
func (s *sharer) meta(m *metav1.ObjectMeta, owners []byte) {
	s.str(&m.Namespace)
	s.str(&m.GenerateName)
	m.Labels = s.stringMap(m.Labels, labelsMap)
	m.Annotations = s.stringMap(m.Annotations, annotationsMap)
	if len(m.OwnerReferences) > 0 {
		m.OwnerReferences = shareEncoded(s, encOwnerReferences, owners, m.OwnerReferences)
	}
}

// PodSharer shares what pods read one at a time hold in common, as a dump's
// decoder does (see sharer): a reader of the API server's paginated LISTs
// keeps one for all the pods of a snapshot. It is not safe for concurrent
// use.
type PodSharer struct{ s *sharer }

// NewPodSharer returns a PodSharer that has seen no pod yet.
func NewPodSharer() *PodSharer { return &PodSharer{newSharer()} }

// Share makes the trimmed pod p point to the first copy of each value it
// holds that an earlier pod held too. Neither p nor those pods may be
// written to afterwards.
func (ps *PodSharer) Share(p *corev1.Pod) { ps.s.pod(p, nil) }
