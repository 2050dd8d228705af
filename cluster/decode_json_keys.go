package cluster

import (
	"bytes"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// keyScanner finds a key set twice in an object of a JSON dump, which
// encoding/json (and the API machinery's decoder) reads as the last value
// without a word. It reads the bytes once and keeps slices of them, so
// that checking every object of a large dump costs little beside decoding.
type keyScanner struct {
	frames []keyFrame
}

type keyFrame struct {
	object bool
	keys   [][]byte // the keys of the object so far, as written
	index  int      // the item of a list
}

var keyScanners = sync.Pool{New: func() any { return new(keyScanner) }}

// duplicateJSONKey returns the path of the first key set twice in an
// object of raw, a JSON value, or nil. Keys are compared as written: a key
// spelt once with an escape and once without is not found.
func duplicateJSONKey(raw []byte) *field.Path {
	s := keyScanners.Get().(*keyScanner)
	defer keyScanners.Put(s)
	s.frames = s.frames[:0]
	expectKey := false
	for i := 0; i < len(raw); i++ {
		for i < len(raw) && !structural[raw[i]] {
			i++ // spaces, numbers, true, false, null
		}
		if i == len(raw) {
			break
		}
		switch raw[i] {
		case '{':
			s.push(true)
			expectKey = true
		case '[':
			s.push(false)
		case '}', ']':
			if len(s.frames) > 0 {
				s.frames = s.frames[:len(s.frames)-1]
			}
			expectKey = false
		case ',':
			if n := len(s.frames); n > 0 {
				if s.frames[n-1].object {
					expectKey = true
				} else {
					s.frames[n-1].index++
				}
			}
		case '"':
			end := stringEnd(raw, i+1)
			if n := len(s.frames); expectKey && n > 0 {
				key := raw[i+1 : end]
				top := &s.frames[n-1]
				for _, k := range top.keys {
					if bytes.Equal(k, key) {
						return s.path(key)
					}
				}
				top.keys = append(top.keys, key)
				expectKey = false
			}
			i = end
		}
	}
	return nil
}

func (s *keyScanner) push(object bool) {
	if len(s.frames) < cap(s.frames) {
		s.frames = s.frames[:len(s.frames)+1]
		f := &s.frames[len(s.frames)-1]
		f.object, f.keys, f.index = object, f.keys[:0], 0
		return
	}
	s.frames = append(s.frames, keyFrame{object: object})
}

// path names key in the innermost object, under the keys and indexes of
// the frames around it.
func (s *keyScanner) path(key []byte) *field.Path {
	var p *field.Path
	child := func(name string) { p = childPath(p, name) }
	for i, f := range s.frames {
		last := i == len(s.frames)-1
		switch {
		case last:
			child(string(key))
		case f.object:
			child(string(f.keys[len(f.keys)-1]))
		case p == nil:
			p = field.NewPath("").Index(f.index)
		default:
			p = p.Index(f.index)
		}
	}
	return p
}

// structural marks the bytes that open or close a value, or separate two.
var structural = [256]bool{'{': true, '}': true, '[': true, ']': true, ',': true, '"': true}

// stringEnd returns the index of the quote that ends the string whose
// first byte is at i: the first quote after an even number of backslashes.
func stringEnd(raw []byte, i int) int {
	start := i
	for {
		j := bytes.IndexByte(raw[i:], '"')
		if j < 0 {
			return len(raw)
		}
		j += i
		k := j
		for k > start && raw[k-1] == '\\' {
			k--
		}
		if (j-k)%2 == 0 {
			return j
		}
		i = j + 1
	}
}

// childPath is path's child name, or name at the root when path is nil. A
// name that is no field name (with a space, a dot or a bracket) is written
// as a key, [a b], so that the path still reads as one.
func childPath(path *field.Path, name string) *field.Path {
	if strings.ContainsAny(name, " \t\n.[]") {
		if path == nil {
			// A root named "" would print as [].
			return field.NewPath("[" + name + "]")
		}
		return path.Key(name)
	}
	if path == nil {
		return field.NewPath(name)
	}
	return path.Child(name)
}
