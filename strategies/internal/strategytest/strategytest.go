// Package strategytest holds what the tests of the built-in strategies
// share: loading a policy with every built-in strategy registered, and
// planning on a snapshot with the real scheduler engine.
package strategytest

import (
	"testing"

	"github.com/kube-rebalancer/rebalancer/policy"
	// Registers the built-in strategies, which the policies configure.
	_ "github.com/kube-rebalancer/rebalancer/strategies"
)

// Header is the start of a policy file, before its settings.
const Header = "apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\n"

// Load loads a policy given as YAML after the header.
func Load(t *testing.T, policyYAML string) *policy.Policy {
	t.Helper()
	p, err := policy.Load([]byte(Header+policyYAML), "policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}
