package deploy

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/policy/policyschema"
)

var updateSchema = flag.Bool("update-schema", false,
	"rewrite definitions.policy of charts/rebalancer/values.schema.json from the policy package's types")

// TestValuesSchemaFollowsPolicyTypes: the schema of the `policy` value is the
// one the policy package's types and the registered strategies imply (run
// with -update-schema to rewrite it after changing them). The unit test of
// package policyschema checks the same without a control plane.
func TestValuesSchemaFollowsPolicyTypes(t *testing.T) {
	path := filepath.Join(chartDir(t), "values.schema.json")
	rewrote, err := policyschema.CheckFile(path, *updateSchema)
	if err != nil {
		t.Fatal(err)
	}
	if rewrote {
		t.Logf("rewrote definitions.policy of %s", path)
	}
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
