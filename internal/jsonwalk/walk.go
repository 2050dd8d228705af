// Package jsonwalk walks a JSON document beside the Go type it decodes
// into, value by value, so that a caller can name every value of the wrong
// type with its path: encoding/json stops at the first one and names it in
// Go's terms. The policy and the cluster dumps word what they find in their
// own way; the walk is the same.
package jsonwalk

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// Walker walks a value of type P, the path of a value in the caller's
// terms, beside a Go type. A value the walk cannot descend into, as its Go
// type decodes it itself or holds a single value, goes to Leaf.
type Walker[P any] struct {
	// Field, Key and Index are the path of a struct field, of a map's value
	// (keyType is the map's key type) and of a list item under path.
	Field func(path P, name string) P
	Key   func(path P, keyType reflect.Type, key string) P
	Index func(path P, i int) P
	// Null judges a null at path, where t is expected; nil accepts every
	// null, as the decoder does (null decodes as nothing).
	Null func(t reflect.Type, path P) bool
	// Leaf judges a value that decodes whole into t: a type that decodes
	// itself, a string, number or boolean, a []byte.
	Leaf func(raw json.RawMessage, t reflect.Type, path P) bool
	// Mismatch judges an object, list or map of t written as a JSON value
	// of another kind; nil hands it to Leaf.
	Mismatch func(raw json.RawMessage, t reflect.Type, path P) bool
	// ByKey visits a struct's fields in the sorted order of the document's
	// keys; otherwise in the order the type declares them.
	ByKey bool
}

// Walk reports whether raw decodes into t, and returns raw with what does
// not dropped: a struct's field left out, a list item made null (so that
// later indexes keep their meaning), a map's value made zero (so that its
// key stays). edited is false when nothing was dropped.
func (w *Walker[P]) Walk(raw json.RawMessage, t reflect.Type, path P) (out json.RawMessage, edited, ok bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return raw, false, true
	}
	if string(raw) == "null" {
		if w.Null == nil {
			return raw, false, true
		}
		return raw, false, w.Null(t, path)
	}
	if t.Kind() == reflect.Interface {
		return raw, false, true
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		return raw, false, w.Leaf(raw, t, path)
	}
	switch t.Kind() {
	case reflect.Struct:
		var obj map[string]json.RawMessage
		if raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
			return raw, false, w.mismatch(raw, t, path)
		}
		fields := jsonFields(t, nil)
		if w.ByKey {
			for _, k := range sortedKeys(obj) {
				if i := slices.IndexFunc(fields, func(f jsonField) bool { return f.name == k }); i >= 0 {
					edited = w.child(obj, k, fields[i].typ, w.Field(path, k), nil) || edited
				}
			}
		} else {
			for _, f := range fields {
				if _, found := obj[f.name]; found {
					edited = w.child(obj, f.name, f.typ, w.Field(path, f.name), nil) || edited
				}
			}
		}
		return remarshal(raw, obj, edited), edited, true
	case reflect.Map:
		var obj map[string]json.RawMessage
		if raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
			return raw, false, w.mismatch(raw, t, path)
		}
		for _, k := range sortedKeys(obj) {
			edited = w.child(obj, k, t.Elem(), w.Key(path, t.Key(), k), zeroJSON(t.Elem())) || edited
		}
		return remarshal(raw, obj, edited), edited, true
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return raw, false, w.Leaf(raw, t, path) // []byte is a base64 string
		}
		var list []json.RawMessage
		if raw[0] != '[' || json.Unmarshal(raw, &list) != nil {
			return raw, false, w.mismatch(raw, t, path)
		}
		for i, v := range list {
			out, e, ok := w.Walk(v, t.Elem(), w.Index(path, i))
			switch {
			case !ok:
				list[i], edited = null, true
			case e:
				list[i], edited = out, true
			}
		}
		return remarshal(raw, list, edited), edited, true
	}
	return raw, false, w.Leaf(raw, t, path)
}

// child walks obj[k], and drops it (replaces it with zero when zero is
// set) when it does not decode. It reports whether obj changed.
func (w *Walker[P]) child(obj map[string]json.RawMessage, k string, t reflect.Type, path P, zero json.RawMessage) bool {
	out, edited, ok := w.Walk(obj[k], t, path)
	switch {
	case !ok && zero != nil:
		obj[k] = zero
	case !ok:
		delete(obj, k)
	case edited:
		obj[k] = out
	default:
		return false
	}
	return true
}

func (w *Walker[P]) mismatch(raw json.RawMessage, t reflect.Type, path P) bool {
	if w.Mismatch != nil {
		return w.Mismatch(raw, t, path)
	}
	return w.Leaf(raw, t, path)
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	null            = json.RawMessage("null")
)

// remarshal returns v as JSON when it was edited, raw otherwise.
func remarshal(raw json.RawMessage, v any, edited bool) json.RawMessage {
	if !edited {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		// v holds only values decoded from raw.
		panic(err)
	}
	return b
}

func zeroJSON(t reflect.Type) json.RawMessage {
	b, err := json.Marshal(reflect.Zero(t).Interface())
	if err != nil {
		return null
	}
	return b
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

type jsonField struct {
	name string
	typ  reflect.Type
}

// jsonFields lists the JSON names of a struct's fields in the order the
// type declares them, those of embedded structs without a name of their
// own (TypeMeta) in place.
func jsonFields(t reflect.Type, out []jsonField) []jsonField {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = jsonFields(ft, out)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{name, f.Type})
	}
	return out
}

// Kind names a JSON value's kind as the decoder's messages do: string,
// bool, number, array or object.
func Kind(raw json.RawMessage) string {
	switch raw[0] {
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case '[':
		return "array"
	case '{':
		return "object"
	}
	return "number"
}
