package cluster

import (
	"encoding/binary"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// Decoding a pod's managedFields, its service account token volume and its
// containers' environment and mounts, only for Trim to drop them, was a
// third of what decoding the API server's pods cost, and most of their
// garbage. AppendTrimmedPod leaves them out of the bytes before they are
// decoded. The fields are named by their numbers in k8s.io/api's and
// apimachinery's generated.proto, which never change: a field's number is
// its name on the wire.

// encodedLevel is what AppendTrimmedPod does with the fields of one kind
// of message: it drops the fields in drop and the messages dropValue says,
// rewrites the message fields nested names, and keeps the rest as they are.
type encodedLevel struct {
	drop      uint64
	dropValue func(num protowire.Number, value []byte) bool
	nested    []nestedLevel
}

type nestedLevel struct {
	num   protowire.Number
	level *encodedLevel
}

func numbers(nums ...protowire.Number) uint64 {
	var set uint64
	for _, n := range nums {
		set |= 1 << n
	}
	return set
}

// trimmedContainerFields are the numbers of the Container fields that
// trimContainer drops: command, args, workingDir, envFrom, env,
// volumeMounts, volumeDevices, the probes, lifecycle, the termination
// message's path and policy, imagePullPolicy and securityContext.
var trimmedContainerFields = numbers(3, 4, 5, 19, 7, 9, 21, 10, 11, 22, 12, 13, 20, 14, 15)

var (
	containerLevel = &encodedLevel{drop: trimmedContainerFields}
	// ObjectMeta's managedFields.
	podMetaLevel = &encodedLevel{drop: numbers(17)}
	// PodSpec's volumes no plan reads, its init containers and containers.
	podSpecLevel = &encodedLevel{
		dropValue: func(num protowire.Number, value []byte) bool { return num == 1 && unreadEncodedVolume(value) },
		nested:    []nestedLevel{{20, containerLevel}, {2, containerLevel}},
	}
	podLevel = &encodedLevel{nested: []nestedLevel{{podMetadata, podMetaLevel}, {podSpec, podSpecLevel}}}
)

// The VolumeSource fields of the volumes unreadVolume names: secret,
// downwardAPI, configMap and projected.
var unreadVolumeSources = numbers(6, 16, 19, 26)

// unreadEncodedVolume is unreadVolume of an encoded Volume, whose source is
// its field 2.
func unreadEncodedVolume(volume []byte) bool {
	for off := 0; off < len(volume); {
		num, typ, value, end, ok := nextField(volume, off)
		if !ok {
			return false
		}
		if num == 2 && typ == protowire.BytesType {
			source, n := protowire.ConsumeBytes(volume[value:end])
			if n < 0 {
				return false
			}
			for soff := 0; soff < len(source); {
				snum, _, _, send, ok := nextField(source, soff)
				if !ok {
					return false
				}
				if snum < 64 && unreadVolumeSources&(1<<snum) != 0 {
					return true
				}
				soff = send
			}
		}
		off = end
	}
	return false
}

// AppendTrimmedPod appends to out a pod's protobuf encoding, as the API
// server sends it, without what Trim drops of its metadata, volumes and
// containers: decoding those bytes and trimming gives the pod that decoding
// pod and trimming gives. ok is false, and out as it was, when pod's
// fields cannot be read.
func AppendTrimmedPod(out, pod []byte) (_ []byte, ok bool) {
	n := len(out)
	if out, ok = appendLevel(out, pod, podLevel); !ok {
		return out[:n], false
	}
	return out, true
}

func appendLevel(out, msg []byte, l *encodedLevel) ([]byte, bool) {
	for off := 0; off < len(msg); {
		num, typ, value, end, ok := nextField(msg, off)
		if !ok {
			return out, false
		}
		if num < 64 && l.drop&(1<<num) != 0 {
			off = end
			continue
		}
		if l.dropValue != nil && typ == protowire.BytesType {
			if v, n := protowire.ConsumeBytes(msg[value:end]); n >= 0 && l.dropValue(num, v) {
				off = end
				continue
			}
		}
		var nested *encodedLevel
		for _, n := range l.nested {
			if n.num == num {
				nested = n.level
			}
		}
		if nested == nil {
			out = append(out, msg[off:end]...)
			off = end
			continue
		}
		if typ != protowire.BytesType {
			return out, false
		}
		inner, vn := protowire.ConsumeBytes(msg[value:end])
		if vn < 0 {
			return out, false
		}
		out = protowire.AppendTag(out, num, protowire.BytesType)
		at := len(out)
		if out, ok = appendLevel(out, inner, nested); !ok {
			return out, false
		}
		// The message's length is known once it is written: put it before.
		var length [binary.MaxVarintLen64]byte
		out = slices.Insert(out, at, protowire.AppendVarint(length[:0], uint64(len(out)-at))...)
		off = end
	}
	return out, true
}
