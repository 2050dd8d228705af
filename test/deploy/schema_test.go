package deploy

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kube-rebalancer/rebalancer/policy"
)

var updateSchema = flag.Bool("update-schema", false,
	"rewrite definitions.policy of charts/rebalancer/values.schema.json from the policy package's types")

// policySchema derives the JSON schema of the chart's `policy` value from
// the Go types `rebalancer run` decodes it into, so that a field added to
// the policy is accepted by the chart after `go test ./test/deploy
// -run TestValuesSchemaFollowsPolicyTypes -update-schema`, and one removed
// is rejected at install time rather than by the strict loader in the pod.
// Types with rules of their own (selectors, durations, percentages,
// namespace names) refer to hand-written definitions in the same file.
type policySchema struct{}

var (
	labelSelectorType = reflect.TypeFor[metav1.LabelSelector]()
	durationType      = reflect.TypeFor[metav1.Duration]()
	thresholdsType    = reflect.TypeFor[policy.ResourceThresholds]()
	namespacesType    = reflect.TypeFor[policy.Namespaces]()
	priorityType      = reflect.TypeFor[policy.PriorityThreshold]()
	strategiesType    = reflect.TypeFor[policy.Strategies]()
	overrideType      = reflect.TypeFor[policy.Override]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
)

func ref(name string) map[string]any { return map[string]any{"$ref": "#/definitions/" + name} }

func (g policySchema) root() map[string]any {
	s := g.of(reflect.TypeFor[policy.RebalancePolicy](), false)
	props := s["properties"].(map[string]any)
	// The chart writes these two itself.
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

// of returns the schema of a type; inOverride drops the node-level
// arguments of strategies, which an override may not set.
func (g policySchema) of(t reflect.Type, inOverride bool) map[string]any {
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
		items := g.of(t.Elem(), inOverride)
		if t.Elem().Kind() == reflect.String {
			// An empty name in a list is never meaningful.
			items["minLength"] = 1
		}
		return map[string]any{"type": "array", "items": items}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.of(t.Elem(), inOverride)}
	case reflect.Struct:
		return g.object(t, inOverride)
	}
	panic(fmt.Sprintf("policySchema: no rule for %s (%s)", t, t.Kind()))
}

func (g policySchema) object(t reflect.Type, inOverride bool) map[string]any {
	props := map[string]any{}
	var required []any
	g.fields(t, inOverride || t == overrideType, props, &required)
	if t == strategiesType && inOverride {
		for name, p := range props {
			args := reflect.New(strategyField(t, name).Elem()).Interface().(policy.StrategyArgs)
			for _, f := range args.NodeLevelFields() {
				delete(p.(map[string]any)["properties"].(map[string]any), f)
			}
		}
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

func strategyField(t reflect.Type, jsonName string) reflect.Type {
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name == jsonName {
			return t.Field(i).Type
		}
	}
	panic("no strategy " + jsonName)
}

func (g policySchema) fields(t reflect.Type, inOverride bool, props map[string]any, required *[]any) {
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
			g.fields(et, inOverride, props, required)
			continue
		}
		if name == "" {
			name = f.Name
		}
		props[name] = g.of(f.Type, inOverride)
		// A field the Go type always writes is one the loader expects.
		if !strings.Contains(opts, "omitempty") {
			*required = append(*required, name)
		}
	}
}

func schemaPath(t testing.TB) string { return filepath.Join(chartDir(t), "values.schema.json") }

func marshalSchema(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(v)
	return b.Bytes(), err
}

// TestValuesSchemaFollowsPolicyTypes: the schema of the `policy` value is the
// one the policy package's types imply (run with -update-schema to rewrite
// it after changing them).
func TestValuesSchemaFollowsPolicyTypes(t *testing.T) {
	data, err := os.ReadFile(schemaPath(t))
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]any
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatalf("values.schema.json: %v", err)
	}
	defs := file["definitions"].(map[string]any)
	checkRefs(t, file, defs)
	// Through JSON, so that numbers compare as the file's do.
	gen, err := marshalSchema(policySchema{}.root())
	if err != nil {
		t.Fatal(err)
	}
	var want any
	if err := json.Unmarshal(gen, &want); err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(defs["policy"], want) {
		return
	}
	if *updateSchema {
		defs["policy"] = want
		out, err := marshalSchema(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(schemaPath(t), out, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote definitions.policy of %s", schemaPath(t))
		return
	}
	got, _ := marshalSchema(defs["policy"])
	t.Errorf("definitions.policy of values.schema.json is not what the policy types imply; run\n"+
		"  go test ./test/deploy -run TestValuesSchemaFollowsPolicyTypes -update-schema\nwant:\n%s\ngot:\n%s", gen, got)
}

// TestValuesSchemaAcceptsShippedPolicies: every policy the repository
// ships as valid (the built-in default and the full example) is accepted by
// the chart as its policy value, and renders to a policy that loads.
func TestValuesSchemaAcceptsShippedPolicies(t *testing.T) {
	for _, file := range []string{"policy/default.yaml", "examples/policy.yaml"} {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(repoRoot(t), file))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := policy.Load(data, file); err != nil {
				t.Fatalf("%s is not valid: %v", file, err)
			}
			var doc map[string]any
			if err := yaml.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			delete(doc, "apiVersion")
			delete(doc, "kind")
			values, err := yaml.Marshal(map[string]any{"policy": doc})
			if err != nil {
				t.Fatal(err)
			}
			// The chart's own defaults must not leak into a policy given in
			// full: null clears the default strategies and limits first.
			clear := "policy:\n  limits: null\n  strategies: null\n"
			objs := helmTemplate(t, "r", "ns",
				"--values", writeFile(t, t.TempDir(), "clear.yaml", clear),
				"--values", writeFile(t, t.TempDir(), "values.yaml", string(values)))
			got := loadRenderedPolicy(t, objs, "r-rebalancer-policy")
			want, _ := policy.Load(data, file)
			if g, w := policyJSON(t, got), policyJSON(t, want); g != w {
				t.Errorf("the chart renders %s as\n%s\nwant\n%s", file, g, w)
			}
		})
	}
}

// checkRefs fails for a $ref to a definition that does not exist, and for a
// definition nothing refers to (left over after a regeneration).
func checkRefs(t *testing.T, file, defs map[string]any) {
	t.Helper()
	used := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "$ref" {
					name := strings.TrimPrefix(s, "#/definitions/")
					if _, ok := defs[name]; !ok {
						t.Errorf("$ref %s: no such definition", s)
					}
					used[name] = true
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(file)
	for name := range defs {
		if !used[name] {
			t.Errorf("definition %s is not used", name)
		}
	}
}
