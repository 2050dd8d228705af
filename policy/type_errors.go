package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	sigsjson "sigs.k8s.io/json"

	"github.com/kube-rebalancer/rebalancer/internal/jsonwalk"
)

// describeTypeError words a decoder's "cannot unmarshal string into Go
// struct field Limits.limits.perNode of type int32" as the user wrote the
// policy: "limits.perNode: a string where a whole number is expected". The
// Go struct and type names mean nothing to someone editing YAML. Messages
// of another form are returned as they are.
func describeTypeError(msg string) string {
	msg = strings.TrimPrefix(msg, "json: ")
	rest, ok := strings.CutPrefix(msg, "cannot unmarshal ")
	if !ok {
		return msg
	}
	value, target, ok := strings.Cut(rest, " into ")
	if !ok {
		return msg
	}
	path := "the policy"
	var typ string
	if field, ok := strings.CutPrefix(target, "Go struct field "); ok {
		// "Limits.limits.perNode of type int32": the struct's name, then
		// the path of JSON names.
		field, typ, _ = strings.Cut(field, " of type ")
		if _, p, ok := strings.Cut(field, "."); ok {
			path = p
		}
	} else if t, ok := strings.CutPrefix(target, "Go value of type "); ok {
		typ = t
	} else {
		return msg
	}
	return path + ": " + article(value) + " where " + expected(typ) + " is expected"
}

// article puts "a" or "an" before a JSON kind as the decoder names it
// (string, number, bool, array, object).
func article(kind string) string {
	switch kind {
	case "array", "object":
		return "an " + kind
	case "bool":
		return "true or false"
	case "number":
		return "a number"
	}
	if strings.HasPrefix(kind, "number ") {
		return "the number " + strings.TrimPrefix(kind, "number ")
	}
	return "a " + kind
}

// expected names what a Go type accepts in YAML.
func expected(typ string) string {
	typ = strings.TrimPrefix(typ, "*")
	switch {
	case strings.HasPrefix(typ, "[]"):
		return "a list"
	case strings.HasPrefix(typ, "map["):
		return "a map"
	case strings.HasSuffix(typ, "Duration"):
		return "a duration such as 5m"
	case typ == "string" || strings.HasSuffix(typ, "ResourceName"):
		return "a string"
	case typ == "bool":
		return "true or false"
	case strings.HasPrefix(typ, "int") || strings.HasPrefix(typ, "uint"):
		return "a whole number"
	case strings.HasPrefix(typ, "float"):
		return "a number"
	}
	return "an object"
}

// typeProblem is a value of the wrong type, at a path of JSON names, list
// indexes and map keys relative to what was decoded ("" for the whole).
type typeProblem struct {
	path, msg string
}

// under returns the problem with its path under prefix; whole names the
// value itself when the path is "".
func (p typeProblem) under(prefix string) typeProblem {
	switch {
	case prefix == "":
	case p.path == "":
		p.path = prefix
	case p.path[0] == '[':
		p.path = prefix + p.path
	default:
		p.path = prefix + "." + p.path
	}
	return p
}

func (p typeProblem) String() string {
	if p.path == "" {
		return "the policy: " + p.msg
	}
	return p.path + ": " + p.msg
}

// decodeAll decodes data into v strictly, like sigsjson.UnmarshalStrict, but
// does not stop at a value of the wrong type: it finds every such value,
// drops it (a field becomes unset; a list item becomes null, so that later
// indexes keep their meaning; a map value becomes zero, so that its key
// stays) and decodes the rest, so that the unknown fields and invalid
// values of the file are reported together with the type errors. The
// decoder itself reports only the first type error and, at a value that
// decodes itself (a duration), gives up on the whole document.
//
// err is a problem the walk did not foresee; the caller words it as the
// decoder does.
func decodeAll(data []byte, v any) (strict []error, problems []typeProblem, err error) {
	var doc json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		return nil, nil, err
	}
	w := jsonwalk.Walker[string]{
		Field: join,
		Key:   func(path string, _ reflect.Type, key string) string { return join(path, key) },
		Index: func(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) },
		// null decodes into anything, as nothing: an object or a list left
		// empty is what YAML means, but a number or a string left out by a
		// template (total: null) would silently be no limit.
		Null: func(t reflect.Type, path string) bool {
			if isScalar(t) {
				problems = append(problems, typeProblem{path, "null where " + expected(t.String()) + " is expected: give one, or leave the field out"})
				return false
			}
			return true
		},
		Leaf: func(raw json.RawMessage, t reflect.Type, path string) bool {
			return checkLeaf(raw, t, path, &problems)
		},
		Mismatch: func(raw json.RawMessage, t reflect.Type, path string) bool {
			problems = append(problems, typeProblem{path, article(jsonwalk.Kind(raw)) + " where " + expected(t.String()) + " is expected"})
			return false
		},
		ByKey: true,
	}
	kept, _, ok := w.Walk(doc, reflect.TypeOf(v).Elem(), "")
	if !ok {
		return nil, problems, nil
	}
	if len(problems) > 0 {
		data = kept
	}
	strict, err = sigsjson.UnmarshalStrict(data, v)
	return strict, problems, err
}

// isScalar reports whether t holds a single value written as a YAML
// scalar: a number, a string, true or false, a duration.
func isScalar(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return strings.HasSuffix(t.String(), "Duration")
}

// checkLeaf decodes a value into t the way the decoder would, and words
// what goes wrong.
func checkLeaf(raw json.RawMessage, t reflect.Type, path string, problems *[]typeProblem) bool {
	err := json.Unmarshal(raw, reflect.New(t).Interface())
	if err == nil {
		return true
	}
	msg := err.Error()
	var str string
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		msg = article(te.Value) + " where " + expected(t.String()) + " is expected"
	} else if raw[0] == '"' && json.Unmarshal(raw, &str) == nil && strings.HasSuffix(t.String(), "Duration") {
		// time.ParseDuration's own words name Go's type, not the field.
		msg = fmt.Sprintf("Invalid value: %q: not a duration; give one such as 90s, 5m or 1h30m", str)
	}
	*problems = append(*problems, typeProblem{path, msg})
	return false
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
