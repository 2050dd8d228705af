// Package policyschema derives the JSON schema of the chart's `policy`
// value (definitions.policy of charts/rebalancer/values.schema.json) from
// the Go types `rebalancer run` decodes a policy into, and the arguments of
// every registered strategy, so that a field or a strategy added to the
// policy is accepted by the chart, and one removed is rejected at install
// time rather than by the strict loader in the pod. Types with rules of
// their own (selectors, durations, percentages, namespace names) refer to
// hand-written definitions of the same file.
package policyschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube-rebalancer/rebalancer/policy"
	// Registers the built-in strategies, whose arguments the schema lists.
	_ "github.com/kube-rebalancer/rebalancer/strategies"
)

var (
	labelSelectorType = reflect.TypeFor[metav1.LabelSelector]()
	durationType      = reflect.TypeFor[metav1.Duration]()
	thresholdsType    = reflect.TypeFor[policy.ResourceThresholds]()
	namespacesType    = reflect.TypeFor[policy.Namespaces]()
	priorityType      = reflect.TypeFor[policy.PriorityThreshold]()
	strategiesType    = reflect.TypeFor[policy.Strategies]()
	overrideType      = reflect.TypeFor[policy.Override]()
	evictableType     = reflect.TypeFor[policy.Evictable]()
	commonType        = reflect.TypeFor[policy.Common]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	intOrStringType   = reflect.TypeFor[intstr.IntOrString]()
)

// Policy returns the schema of the chart's `policy` value: a
// RebalancePolicy without apiVersion and kind, which the chart writes.
func Policy() map[string]any {
	s := of(reflect.TypeFor[policy.RebalancePolicy](), false)
	props := s["properties"].(map[string]any)
	delete(props, "apiVersion")
	delete(props, "kind")
	if req, ok := s["required"].([]any); ok {
		var keep []any
		for _, r := range req {
			if r != "apiVersion" && r != "kind" {
				keep = append(keep, r)
			}
		}
		s["required"] = keep
		if len(keep) == 0 {
			delete(s, "required")
		}
	}
	s["description"] = "the RebalancePolicy (rebalancer.dev/v1alpha1) without apiVersion and kind; generated from the policy package's types"
	return s
}

// Marshal writes a schema as values.schema.json is written.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(v)
	return b.Bytes(), err
}

func ref(name string) map[string]any { return map[string]any{"$ref": "#/definitions/" + name} }

// of returns the schema of a type; inOverride drops what an override may
// not set: the node-level arguments of strategies and
// evictable.namespaceSelector.
func of(t reflect.Type, inOverride bool) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case labelSelectorType:
		return ref("labelSelector")
	case durationType:
		return ref("duration")
	case thresholdsType:
		return ref("thresholds")
	case namespacesType:
		return ref("namespaces")
	case priorityType:
		return ref("priorityThreshold")
	case rawMessageType:
		return map[string]any{"type": "object"}
	case intOrStringType:
		return intOrPercent()
	case strategiesType:
		return strategies(inOverride)
	}
	switch t.Kind() {
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Int32:
		// Counts, limits and seconds: never negative.
		return map[string]any{"type": "integer", "minimum": 0, "maximum": 2147483647}
	case reflect.Int64, reflect.Int:
		return map[string]any{"type": "integer", "minimum": 0}
	case reflect.Float64, reflect.Float32:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		items := of(t.Elem(), inOverride)
		if t.Elem().Kind() == reflect.String {
			// An empty name in a list is never meaningful.
			items["minLength"] = 1
		}
		return map[string]any{"type": "array", "items": items}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": of(t.Elem(), inOverride)}
	case reflect.Struct:
		return object(t, inOverride)
	}
	panic(fmt.Sprintf("policyschema: no rule for %s (%s)", t, t.Kind()))
}

// intOrPercent is an IntOrString of the policy: a count or a percentage
// from 0% to 100%, marked as Kubernetes' OpenAPI marks the type.
func intOrPercent() map[string]any {
	return map[string]any{
		"x-kubernetes-int-or-string": true,
		"anyOf": []any{
			map[string]any{"type": "integer", "minimum": 0, "maximum": 2147483647},
			map[string]any{"type": "string", "pattern": "^(100|[1-9]?[0-9])%$"},
		},
	}
}

// strategies is the schema of a strategies object: one property per
// registered strategy, the schema of its arguments.
func strategies(inOverride bool) map[string]any {
	props := map[string]any{}
	for _, name := range policy.Order() {
		args := policy.NewArgs(name)
		s := of(reflect.TypeOf(args), inOverride)
		if inOverride {
			for _, f := range args.NodeLevelFields() {
				delete(s["properties"].(map[string]any), f)
			}
		}
		props[name] = s
	}
	return map[string]any{"type": "object", "additionalProperties": false, "properties": props}
}

func object(t reflect.Type, inOverride bool) map[string]any {
	props := map[string]any{}
	var required []any
	fields(t, inOverride || t == overrideType, props, &required)
	if inOverride && t == evictableType {
		// An override chooses its namespaces itself.
		delete(props, "namespaceSelector")
	}
	s := map[string]any{"type": "object", "additionalProperties": false, "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	if t == overrideType {
		props["namespaces"] = map[string]any{"allOf": []any{ref("namespaceList"), map[string]any{"minItems": 1}}}
		s["oneOf"] = []any{map[string]any{"required": []any{"namespaces"}}, map[string]any{"required": []any{"namespaceSelector"}}}
		s["description"] = "applies to namespaces by name or by namespaceSelector, not both; node-level strategy arguments cannot be set here"
	}
	return s
}

func fields(t reflect.Type, inOverride bool, props map[string]any, required *[]any) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if name == "" && (f.Anonymous || strings.Contains(opts, "inline")) {
			et := f.Type
			for et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			fields(et, inOverride, props, required)
			continue
		}
		if name == "" {
			name = f.Name
		}
		props[name] = of(f.Type, inOverride)
		if t == commonType && name == "evictable" {
			// Which namespaces rebalancer works in is for every strategy.
			delete(props[name].(map[string]any)["properties"].(map[string]any), "namespaceSelector")
		}
		// A field the Go type always writes is one the loader expects.
		if !strings.Contains(opts, "omitempty") {
			*required = append(*required, name)
		}
	}
}
