package policy

import "strings"

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
