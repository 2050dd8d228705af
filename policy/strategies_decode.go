package policy

import (
	"strings"
)

// decodeProblems are what decoding a strategies object found wrong, with
// field paths relative to that object.
type decodeProblems struct {
	// strict are unknown names and fields; each has a FieldPath.
	strict []error
	// typeErr is the first value of the wrong type. The decoder stops the
	// whole document at such a value, and so does Load.
	typeErr *entryTypeError
}

// unknownStrategyError is a name under strategies: that no registered
// strategy has, worded as the decoder words an unknown field.
type unknownStrategyError struct{ name string }

func (e *unknownStrategyError) Error() string     { return `unknown field "` + e.name + `"` }
func (e *unknownStrategyError) FieldPath() string { return e.name }

// entryTypeError is a value of the wrong type in a strategies object: the
// arguments of the strategy name (err, from decoding into args), or, when
// name is empty, the object itself (of kind value).
type entryTypeError struct {
	name  string
	err   error
	args  StrategyArgs
	value string
}

// at words the error as the decoder words it when it meets the value at
// path (a path of field names, as in "overrides.strategies") in a struct
// of type owner.
func (e *entryTypeError) at(owner, path string) string {
	if e.name == "" {
		return "cannot unmarshal " + e.value + " into Go struct field " + owner + "." + path + " of type policy.Strategies"
	}
	msg := strings.TrimPrefix(e.err.Error(), "json: ")
	if before, after, ok := strings.Cut(msg, " into Go struct field "); ok {
		// "ArgsType.field" becomes "ArgsType.<path>.<name>.field".
		typ, rest, _ := strings.Cut(after, ".")
		return before + " into Go struct field " + typ + "." + path + "." + e.name + "." + rest
	}
	if before, typ, ok := strings.Cut(msg, " into Go value of type "); ok {
		return before + " into Go struct field Strategies." + path + "." + e.name + " of type " + typ
	}
	return msg
}

// strictAt returns the unknown names and fields with their paths under
// prefix (as in "overrides[0].strategies").
func (p *decodeProblems) strictAt(prefix string) []error {
	out := make([]error, len(p.strict))
	for i, e := range p.strict {
		out[i] = &nestedStrictError{prefix: prefix, err: e}
	}
	return out
}

// nestedStrictError is a strict decoding error with its path completed.
type nestedStrictError struct {
	prefix string
	err    error
}

func (e *nestedStrictError) Error() string { return e.err.Error() }
func (e *nestedStrictError) FieldPath() string {
	return e.prefix + "." + e.err.(interface{ FieldPath() string }).FieldPath()
}

// jsonKind names a JSON value's kind the way the decoder's messages do.
func jsonKind(data []byte) string {
	switch s := strings.TrimSpace(string(data)); {
	case s == "":
		return "value"
	case s[0] == '"':
		return "string"
	case s[0] == '[':
		return "array"
	case s == "true" || s == "false":
		return "bool"
	default:
		return "number"
	}
}
