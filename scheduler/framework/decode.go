package framework

import (
	stdjson "encoding/json"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"sigs.k8s.io/json"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// DecodeStrict decodes JSON case-sensitively, refusing unknown and
// duplicate fields, as kube-scheduler's own loader does; errors name
// fields under path ("" for a whole KubeSchedulerConfiguration).
func DecodeStrict(raw []byte, v any, path string) error {
	strict, err := json.UnmarshalStrict(raw, v)
	if err != nil {
		return typeError(raw, v, path, err)
	}
	if len(strict) == 0 {
		return nil
	}
	errs := make([]error, len(strict))
	for i, e := range strict {
		var fe json.FieldError
		if errors.As(e, &fe) {
			at := fe.FieldPath()
			if path != "" {
				at = path + "." + at
			}
			if at == "" || strings.HasSuffix(at, ".") {
				// A key that YAML allows to be empty ("! :" is one).
				at += `""`
			}
			reason := "unknown field"
			if strings.HasPrefix(e.Error(), "duplicate field") {
				reason = "duplicate field"
			}
			errs[i] = fmt.Errorf("%s: %s", at, reason)
			continue
		}
		errs[i] = e
	}
	return errors.Join(errs...)
}

// typeError words err, the decoder's refusal of a value of the wrong type
// somewhere in raw, as every such value's field path and what it must be:
// the decoder names only the first, by Go's struct and type names.
func typeError(raw []byte, v any, path string, err error) error {
	var at *field.Path
	if path != "" {
		at = field.NewPath(path)
	}
	if errs := cluster.TypeErrors(raw, v, at); len(errs) > 0 {
		lines := make([]error, len(errs))
		for i, e := range errs {
			lines[i] = e
		}
		return errors.Join(lines...)
	}
	what := "an object"
	if path == "" {
		what = "a KubeSchedulerConfiguration (apiVersion: " + configv1.SchemeGroupVersion.String() + ")"
	}
	var typeErr *stdjson.UnmarshalTypeError
	if !errors.As(err, &typeErr) {
		return withPath(path, err)
	}
	return withPath(path, fmt.Errorf("%s where %s is expected", article(typeErr.Value), what))
}

// withPath puts the path of what was decoded before err, when there is one.
func withPath(path string, err error) error {
	if path == "" {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// article names a JSON value's kind, as the decoder does, with its article.
func article(kind string) string {
	switch kind {
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "bool":
		return "a boolean"
	}
	return "a " + kind
}
