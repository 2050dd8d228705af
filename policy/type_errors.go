package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	sigsjson "sigs.k8s.io/json"
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
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, nil, err
	}
	if !checkTypes(&tree, reflect.TypeOf(v).Elem(), "", &problems) {
		return nil, problems, nil
	}
	if len(problems) > 0 {
		if data, err = json.Marshal(tree); err != nil {
			return nil, nil, err
		}
	}
	strict, err = sigsjson.UnmarshalStrict(data, v)
	return strict, problems, err
}

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

// checkTypes reports whether the value at *node decodes into t, appending a
// problem for each value below it that does not and dropping that value
// from the tree.
func checkTypes(node *any, t reflect.Type, path string, problems *[]typeProblem) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if *node == nil {
		// null decodes into anything, as nothing: an object or a list left
		// empty is what YAML means, but a number or a string left out by a
		// template (total: null) would silently be no limit.
		if isScalar(t) {
			*problems = append(*problems, typeProblem{path, "null where " + expected(t.String()) + " is expected: give one, or leave the field out"})
			return false
		}
		return true
	}
	bad := func(kind string) bool {
		*problems = append(*problems, typeProblem{path, article(kind) + " where " + expected(t.String()) + " is expected"})
		return false
	}
	if t.Kind() != reflect.Interface && reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		return checkLeaf(*node, t, path, problems)
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := (*node).(map[string]any)
		if !ok {
			return bad(treeKind(*node))
		}
		for _, key := range sortedKeys(obj) {
			ft, ok := fieldType(t, key)
			if !ok {
				continue // an unknown field, which strict decoding reports
			}
			if v := obj[key]; !checkTypes(&v, ft, join(path, key), problems) {
				delete(obj, key)
			}
		}
	case reflect.Map:
		obj, ok := (*node).(map[string]any)
		if !ok {
			return bad(treeKind(*node))
		}
		for _, key := range sortedKeys(obj) {
			if v := obj[key]; !checkTypes(&v, t.Elem(), join(path, key), problems) {
				// The key stays, with a zero value: rules that compare the
				// keys of two maps (thresholds and targetThresholds) must
				// not see it missing.
				obj[key] = zeroJSON(t.Elem())
			}
		}
	case reflect.Slice:
		list, ok := (*node).([]any)
		if !ok {
			if t.Elem().Kind() == reflect.Uint8 {
				return checkLeaf(*node, t, path, problems) // []byte is a base64 string
			}
			return bad(treeKind(*node))
		}
		for i := range list {
			if !checkTypes(&list[i], t.Elem(), fmt.Sprintf("%s[%d]", path, i), problems) {
				list[i] = nil
			}
		}
	case reflect.Interface:
	default:
		return checkLeaf(*node, t, path, problems)
	}
	return true
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
func checkLeaf(node any, t reflect.Type, path string, problems *[]typeProblem) bool {
	raw, err := json.Marshal(node)
	if err == nil {
		err = json.Unmarshal(raw, reflect.New(t).Interface())
	}
	if err == nil {
		return true
	}
	msg := err.Error()
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		msg = article(te.Value) + " where " + expected(t.String()) + " is expected"
	} else if str, isString := node.(string); isString && strings.HasSuffix(t.String(), "Duration") {
		// time.ParseDuration's own words name Go's type, not the field.
		msg = fmt.Sprintf("Invalid value: %q: not a duration; give one such as 90s, 5m or 1h30m", str)
	}
	*problems = append(*problems, typeProblem{path, msg})
	return false
}

func zeroJSON(t reflect.Type) json.RawMessage {
	b, err := json.Marshal(reflect.Zero(t).Interface())
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// fieldType finds the field a JSON key decodes into, exactly as named, among
// the struct's fields and those of its embedded (inline) structs.
func fieldType(t reflect.Type, key string) (reflect.Type, bool) {
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
				if found, ok := fieldType(ft, key); ok {
					return found, true
				}
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		if name == key {
			return f.Type, true
		}
	}
	return nil, false
}

// treeKind names a decoded JSON value's kind the way the decoder's messages
// do.
func treeKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case json.Number:
		return "number"
	case []any:
		return "array"
	}
	return "object"
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
