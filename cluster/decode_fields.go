package cluster

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"

	"github.com/kube-rebalancer/rebalancer/internal/jsonwalk"
)

// TypeErrors returns an error for each value in data, a JSON object, that
// does not decode into v (a pointer, as for json.Unmarshal) the way the API
// machinery decodes it: field names exactly as written, unknown fields
// ignored, null as nothing. The decoder stops at the first such value and
// names it in Go's terms (Go struct field PodSpec.spec.priority of type
// int32); a user needs the path of every one, in the words of YAML. The
// paths are under path; with a nil path, data that is not an object at all
// gives no error, and the caller says what it expected.
func TypeErrors(data []byte, v any, path *field.Path) field.ErrorList {
	return fieldErrors(data, reflect.TypeOf(v), path, nil)
}

// fieldErrors appends an error for each value in raw, at path, that does
// not decode into t the way the API machinery's decoder decodes it: field
// names exactly as written, unknown fields ignored, null as nothing.
func fieldErrors(raw json.RawMessage, t reflect.Type, path *field.Path, errs field.ErrorList) field.ErrorList {
	w := jsonwalk.Walker[*field.Path]{
		Field: child,
		Key: func(path *field.Path, keyType reflect.Type, k string) *field.Path {
			if keyType == resourceName {
				// As the quantity checks and kubectl explain name a
				// resource: requests.cpu.
				return child(path, k)
			}
			return path.Key(k)
		},
		Index: (*field.Path).Index,
		Leaf: func(raw json.RawMessage, t reflect.Type, path *field.Path) bool {
			err := sigsjson.UnmarshalCaseSensitivePreserveInts(raw, reflect.New(t).Interface())
			if err == nil || path == nil {
				// The whole object is not an object: the caller's cause says so.
				return err == nil
			}
			errs = append(errs, field.Invalid(path, badValue(raw), mustBe(t, raw, err)))
			return false
		},
	}
	w.Walk(raw, t, path)
	return errs
}

var resourceName = reflect.TypeFor[corev1.ResourceName]()

// child is path's field name, or the first of a path.
func child(path *field.Path, name string) *field.Path {
	if path == nil {
		return field.NewPath(name)
	}
	return path.Child(name)
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
	case reflect.TypeFor[metav1.Duration]():
		return "must be a duration such as 90s, 5m or 1h30m"
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
