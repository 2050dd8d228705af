package policy

import (
	"strings"
)

// decodeProblems are what decoding a strategies object found wrong, with
// field paths relative to that object.
type decodeProblems struct {
	// strict are unknown names and fields; each has a FieldPath.
	strict []error
	// types are the values of the wrong type, the strategies object itself
	// at path "".
	types []typeProblem
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

// typesAt returns the values of the wrong type with their paths under
// prefix.
func (p *decodeProblems) typesAt(prefix string) []typeProblem {
	out := make([]typeProblem, len(p.types))
	for i, t := range p.types {
		out[i] = t.under(prefix)
	}
	return out
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
