package policyschema

import (
	"flag"
	"testing"
)

var update = flag.Bool("update", false,
	"rewrite definitions.policy of charts/rebalancer/values.schema.json from the policy types and the registered strategies")

// The chart's schema of the `policy` value is the one the policy types and
// the strategy table imply (run with -update to rewrite it after changing
// them).
func TestValuesSchemaFollowsPolicyTypes(t *testing.T) {
	const path = "../../charts/rebalancer/values.schema.json"
	rewrote, err := CheckFile(path, *update)
	if err != nil {
		t.Fatal(err)
	}
	if rewrote {
		t.Logf("rewrote definitions.policy of %s", path)
	}
}
