package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"
)

// maxReportedObjects bounds the objects an error names one by one: a dump
// edited wrong in one place is often wrong in thousands, and the first
// ones say what to fix.
const maxReportedObjects = 20

// objectErrors collects what is wrong with the objects of a dump, object
// by object, so that one run reports all of it (up to maxReportedObjects,
// then a count), as kube-apiserver reports every invalid field of an
// object at once.
type objectErrors struct {
	lines []string
	// objects counts the objects with problems; last is the latest, whose
	// further problems count no more.
	objects int
	last    string
}

// full reports whether further objects are only counted, so that the
// caller can skip working out what is wrong with them.
func (e *objectErrors) full() bool { return e.objects >= maxReportedObjects }

// add records a problem of object, which names the object ("Pod
// shop/web-1") or, when it has no name, where it is ("document 3: item 2").
func (e *objectErrors) add(object string, problem string) {
	if object != e.last || e.objects == 0 {
		e.objects++
		e.last = object
	}
	if e.objects <= maxReportedObjects {
		e.lines = append(e.lines, object+": "+problem)
	}
}

func (e *objectErrors) err() error {
	if e.objects == 0 {
		return nil
	}
	lines := e.lines
	if more := e.objects - maxReportedObjects; more > 0 {
		lines = append(lines[:len(lines):len(lines)], fmt.Sprintf("and %d more objects with problems", more))
	}
	return &InvalidObjectsError{Problems: lines}
}

// InvalidObjectsError is what is wrong with the objects of a dump or a
// cluster, a line per problem, each naming the object and the field.
type InvalidObjectsError struct {
	Problems []string
}

func (e *InvalidObjectsError) Error() string { return strings.Join(e.Problems, "\n") }

// invalidObject is an object of a known kind that does not decode, with
// each of its fields that does not.
type invalidObject struct {
	// object is "Kind namespace/name", "Kind name" or, with no name, "Kind".
	object string
	named  bool
	errs   field.ErrorList
	// cause is the decoder's own error, for a problem no field explains.
	cause error
}

func (e *invalidObject) Error() string { return e.object + ": " + e.problems()[0] }

func (e *invalidObject) problems() []string {
	if len(e.errs) == 0 {
		return []string{e.cause.Error()}
	}
	out := make([]string, len(e.errs))
	for i, fe := range e.errs {
		out[i] = fe.Error()
	}
	return out
}

// report adds the problems of err, about the object at where, to e.
func (e *objectErrors) report(where string, err error) {
	var bad *invalidObject
	if !errors.As(err, &bad) {
		e.add(where, err.Error())
		return
	}
	object := bad.object
	if !bad.named {
		object = where + ": " + bad.object
	}
	for _, p := range bad.problems() {
		e.add(object, p)
	}
}

// explainDecodeError works out which fields of raw, an object of type t
// that the decoder refused with cause, do not decode. The decoder stops at
// the first and names no path; a user needs the path of every one.
func explainDecodeError(raw []byte, kind string, t reflect.Type, cause error) *invalidObject {
	bad := &invalidObject{object: kind, cause: cause}
	var meta struct {
		Metadata map[string]json.RawMessage `json:"metadata"`
	}
	if json.Unmarshal(raw, &meta) == nil {
		var name, namespace string
		if json.Unmarshal(meta.Metadata["name"], &name) == nil && name != "" {
			bad.named = true
			bad.object += " " + name
			if json.Unmarshal(meta.Metadata["namespace"], &namespace) == nil && namespace != "" {
				bad.object = kind + " " + namespace + "/" + name
			}
		}
	}
	bad.errs = fieldErrors(raw, t, nil, nil)
	return bad
}

// fieldErrors appends an error for each value in raw, at path, that does
// not decode into t the way the API machinery's decoder decodes it: field
// names exactly as written, unknown fields ignored, null as nothing.
func fieldErrors(raw json.RawMessage, t reflect.Type, path *field.Path, errs field.ErrorList) field.ErrorList {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return errs
	}
	if !reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		switch t.Kind() {
		case reflect.Struct:
			var obj map[string]json.RawMessage
			if json.Unmarshal(raw, &obj) != nil {
				break
			}
			for _, f := range jsonFields(t, nil) {
				if v, ok := obj[f.name]; ok {
					errs = fieldErrors(v, f.typ, child(path, f.name), errs)
				}
			}
			return errs
		case reflect.Map:
			var obj map[string]json.RawMessage
			if json.Unmarshal(raw, &obj) != nil {
				break
			}
			keys := make([]string, 0, len(obj))
			for k := range obj {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				at := path.Key(k)
				if t.Key() == resourceName {
					// As the quantity checks and kubectl explain name a
					// resource: requests.cpu.
					at = child(path, k)
				}
				errs = fieldErrors(obj[k], t.Elem(), at, errs)
			}
			return errs
		case reflect.Slice:
			if t.Elem().Kind() == reflect.Uint8 {
				break // []byte is a base64 string
			}
			var list []json.RawMessage
			if json.Unmarshal(raw, &list) != nil {
				break
			}
			for i, v := range list {
				errs = fieldErrors(v, t.Elem(), path.Index(i), errs)
			}
			return errs
		}
	}
	err := sigsjson.UnmarshalCaseSensitivePreserveInts(raw, reflect.New(t).Interface())
	if err == nil || path == nil {
		// The whole object is not an object: the caller's cause says so.
		return errs
	}
	return append(errs, field.Invalid(path, badValue(raw), mustBe(t, raw, err)))
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	resourceName    = reflect.TypeFor[corev1.ResourceName]()
)

// child is path's field name, or the first of a path.
func child(path *field.Path, name string) *field.Path {
	if path == nil {
		return field.NewPath(name)
	}
	return path.Child(name)
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

// maxShownValue bounds a list or an object shown as the bad value: a whole
// container spec would drown the message.
const maxShownValue = 60

// badValue is the value an error shows: a string or a number as written,
// a short list or object as compact JSON, a long one not at all.
func badValue(raw json.RawMessage) any {
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case '{', '[':
		var buf bytes.Buffer
		if json.Compact(&buf, raw) == nil && buf.Len() <= maxShownValue {
			return json.RawMessage(buf.Bytes())
		}
		return field.OmitValueType{}
	}
	return json.RawMessage(raw)
}

// mustBe says what a field of type t accepts, in the words of YAML rather
// than Go's types.
func mustBe(t reflect.Type, raw json.RawMessage, err error) string {
	switch t {
	case reflect.TypeFor[metav1.Time](), reflect.TypeFor[metav1.MicroTime]():
		return "must be an RFC 3339 time such as 2026-11-20T12:00:00Z"
	case reflect.TypeFor[intstr.IntOrString]():
		return "must be a whole number or a string"
	case reflect.TypeFor[resource.Quantity]():
		if raw[0] == '"' || raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9') {
			return err.Error() // the API server's own words
		}
		return "must be a quantity such as 500m, 2 or 1Gi"
	}
	switch t.Kind() {
	case reflect.Struct:
		return "must be an object"
	case reflect.Map:
		return "must be a map"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "must be a base64 string"
		}
		return "must be a list"
	case reflect.String:
		return "must be a string"
	case reflect.Bool:
		return "must be true or false"
	case reflect.Float32, reflect.Float64:
		return "must be a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		return "must be a whole number from " + strconv.FormatInt(-1<<(bits-1), 10) + " to " + strconv.FormatInt(1<<(bits-1)-1, 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "must be a whole number from 0 to " + strconv.FormatUint(math.MaxUint64>>(64-t.Bits()), 10)
	}
	return err.Error()
}
