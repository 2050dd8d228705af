// Package e2e runs the rebalancer binary, as users run it, against real
// control planes (test/harness): dry-run and offline planning agree, real
// runs evict within the policy's limits and PodDisruptionBudgets, a missing
// permission or a lost API server fails loudly without evicting more than
// reported, and `rebalancer schedule` puts replacements where the plan said.
//
// The tests live in _test.go files; this file only names the package.
package e2e
