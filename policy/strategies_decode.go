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
// strategy has.
type unknownStrategyError struct{ name string }

// Error suggests the registered name the user most likely meant (a typo,
// British spelling, a lost letter), or lists them all.
func (e *unknownStrategyError) Error() string {
	if near := nearestName(e.name, Order()); near != "" {
		return "unknown strategy; did you mean " + near + "?"
	}
	return "unknown strategy; the strategies are " + strings.Join(Order(), ", ")
}

func (e *unknownStrategyError) FieldPath() string { return e.name }

// nearestName returns the name closest to s by edit distance, ignoring
// case, when it is close enough to be a slip (at most a quarter of its
// letters, and at least 2, differ), or "".
func nearestName(s string, names []string) string {
	best, bestDist := "", 0
	for _, n := range names {
		d := editDistance(strings.ToLower(s), strings.ToLower(n))
		if best == "" || d < bestDist {
			best, bestDist = n, d
		}
	}
	if best == "" || bestDist > max(2, len(best)/4) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

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
