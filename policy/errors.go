package policy

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Error is an invalid policy: every problem found, each naming the file, the
// field path and the bad value.
type Error struct {
	File     string
	Problems []string
}

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = e.File + ": " + p
	}
	return strings.Join(lines, "\n")
}

func newError(file string, errs field.ErrorList) *Error {
	e := &Error{File: file}
	for _, fe := range errs {
		e.Problems = append(e.Problems, describe(fe))
	}
	return e
}

// describe formats a field error as "path: value problem", the way a user
// reads it next to the file: "strategies.X.targetThresholds.cpu: 120 is
// above 100".
func describe(e *field.Error) string {
	switch e.Type {
	case field.ErrorTypeInvalid:
		return fmt.Sprintf("%s: %s %s", e.Field, formatValue(e.BadValue), e.Detail)
	case field.ErrorTypeRequired:
		if e.Detail == "" {
			return e.Field + ": is required"
		}
		return fmt.Sprintf("%s: is required (%s)", e.Field, e.Detail)
	case field.ErrorTypeNotSupported:
		if e.Detail == "" {
			return fmt.Sprintf("%s: %s is not supported", e.Field, formatValue(e.BadValue))
		}
		return fmt.Sprintf("%s: %s is not supported; %s", e.Field, formatValue(e.BadValue), e.Detail)
	case field.ErrorTypeDuplicate:
		return fmt.Sprintf("%s: %s is listed twice", e.Field, formatValue(e.BadValue))
	case field.ErrorTypeForbidden:
		return fmt.Sprintf("%s: %s", e.Field, e.Detail)
	}
	return e.Error()
}

func formatValue(v any) string {
	switch t := v.(type) {
	case string:
		return fmt.Sprintf("%q", t)
	case float64, float32, int, int32, int64, uint, uint32, uint64, bool:
		return fmt.Sprint(t)
	case *int32:
		if t != nil {
			return fmt.Sprint(*t)
		}
	case *int64:
		if t != nil {
			return fmt.Sprint(*t)
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
