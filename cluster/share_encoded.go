package cluster

import (
	"bytes"

	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
)

// The API server sends pods in protobuf, and the pods of a workload carry
// the same bytes for what their template gave them. Decoding is a function
// of the bytes and trimming one of the value, so two pods whose bytes for a
// field are equal hold equal values there once trimmed: the bytes find the
// value to share without comparing values, which reflect.DeepEqual made
// the largest part of sharing a pod.

// encodedField is a field of a pod that is shared by its bytes.
type encodedField int

const (
	encOwnerReferences encodedField = iota
	encInitContainers
	encContainers
	encTolerations
	encAffinity
	encSpread
	encSecurityContext
	encOverhead
	encodedFields
)

// The fields' numbers in k8s.io/api's and apimachinery's generated.proto,
// which never change: a field's number is its name on the wire.
const (
	podMetadata protowire.Number = 1
	podSpec     protowire.Number = 2
)

var (
	metaFields = [...]fieldNumber{{13, encOwnerReferences}}
	specFields = [...]fieldNumber{
		{20, encInitContainers},
		{2, encContainers},
		{22, encTolerations},
		{18, encAffinity},
		{33, encSpread},
		{14, encSecurityContext},
		{32, encOverhead},
	}
)

type fieldNumber struct {
	num   protowire.Number
	field encodedField
}

// podEncoding holds, for each encodedField, the pod's bytes from the
// field's first occurrence to the end of its last: all that decoding reads
// of it, a repeated field's items and a message field set twice included.
// A field the pod does not set has none.
type podEncoding [encodedFields][]byte

// encodingOf finds the fields' bytes in a pod's protobuf encoding; ok is
// false when it cannot tell them (the bytes do not parse, or the pod's
// metadata or spec is set twice and would be merged).
func encodingOf(pod []byte) (enc podEncoding, ok bool) {
	var meta, spec []byte
	seen := 0
	for off := 0; off < len(pod); {
		num, typ, value, end, ok := nextField(pod, off)
		if !ok {
			return podEncoding{}, false
		}
		if num == podMetadata || num == podSpec {
			if seen&(1<<num) != 0 || typ != protowire.BytesType {
				return podEncoding{}, false
			}
			seen |= 1 << num
			v, n := protowire.ConsumeBytes(pod[value:end])
			if n < 0 {
				return podEncoding{}, false
			}
			if num == podMetadata {
				meta = v
			} else {
				spec = v
			}
		}
		off = end
	}
	if !spans(meta, metaFields[:], &enc) || !spans(spec, specFields[:], &enc) {
		return podEncoding{}, false
	}
	return enc, true
}

// nextField reads the field at msg[off:]: its number and type, and where
// its value starts and it ends.
func nextField(msg []byte, off int) (num protowire.Number, typ protowire.Type, value, end int, ok bool) {
	num, typ, n := protowire.ConsumeTag(msg[off:])
	if n < 0 {
		return 0, 0, 0, 0, false
	}
	m := protowire.ConsumeFieldValue(num, typ, msg[off+n:])
	if m < 0 {
		return 0, 0, 0, 0, false
	}
	return num, typ, off + n, off + n + m, true
}

// spans sets, for each of fields, its bytes in msg.
func spans(msg []byte, fields []fieldNumber, enc *podEncoding) bool {
	var start [encodedFields]int
	for off := 0; off < len(msg); {
		num, _, _, end, ok := nextField(msg, off)
		if !ok {
			return false
		}
		for _, f := range fields {
			if f.num != num {
				continue
			}
			if enc[f.field] == nil {
				start[f.field] = off
			}
			enc[f.field] = msg[start[f.field]:end]
		}
		off = end
	}
	return true
}

// byEncoding is what the sharer found of one encodedField: the values by
// their bytes, and the last one, which the next replica most often has.
type byEncoding struct {
	values  map[string]any
	lastKey []byte
	last    any
}

// shareEncoded returns the first value shared for a pod whose field has
// the bytes enc; without them, the first value deeply equal to v.
func shareEncoded[T any](s *sharer, f encodedField, enc []byte, v T) T {
	if enc == nil {
		return share(s, v)
	}
	e := &s.encoded[f]
	if e.last != nil && bytes.Equal(e.lastKey, enc) {
		return e.last.(T)
	}
	shared, ok := e.values[string(enc)]
	if !ok {
		// Other bytes can decode to an equal value (a map's entries in
		// another order): the first pod with these may find an earlier one.
		shared = share(s, v)
		if e.values == nil {
			e.values = make(map[string]any)
		}
		e.values[string(enc)] = shared
	}
	e.lastKey = append(e.lastKey[:0], enc...)
	e.last = shared
	return shared.(T)
}

// ShareEncoded is Share for a pod decoded from pod, its protobuf encoding
// less what trimming drops (AppendTrimmedPod): the fields that replicas
// hold in common are found by their bytes, which costs less than comparing
// values. The pod must be what decoding those bytes gives, trimmed. (Each
// pod's full encoding differs from its replicas' in its token volume's
// name, in its containers' mounts among others: sharing would find no
// container by it.)
func (ps *PodSharer) ShareEncoded(p *corev1.Pod, pod []byte) {
	enc, ok := encodingOf(pod)
	if !ok {
		ps.s.pod(p, nil)
		return
	}
	ps.s.pod(p, &enc)
}
