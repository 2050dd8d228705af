package app

import (
	"strings"
	"testing"
)

// validate reports every problem of a policy at once, values of the wrong
// type among them, one line each, and exits 2.
func TestValidateReportsEveryProblemAtOnce(t *testing.T) {
	file := writeFile(t, "policy.yaml", `apiVersion: rebalancer.dev/v1alpha1
kind: RebalancePolicy
limits: {perNode: "5", total: -1}
evictable: {systemCriticl: true}
overrides:
- namespaces: [batch]
- namespaces: [web]
  limits: {perNamespace: two}
strategies:
  LowNodeUtilization:
    thresholds: {cpu: high}
    targetThresholds: {cpu: 50}
`)
	want := []string{
		file + ": evictable.systemCriticl: unknown field",
		file + ": limits.perNode: a string where a whole number is expected",
		file + ": overrides[1].limits.perNamespace: a string where a whole number is expected",
		file + ": strategies.LowNodeUtilization.thresholds.cpu: a string where a number is expected",
		file + ": limits.total: -1 is negative (leave it out for no limit)",
	}
	_, code, err := execute(t, "validate", file)
	if code != exitUsage {
		t.Errorf("exit code %d, want %d", code, exitUsage)
	}
	if err == nil {
		t.Fatal("no error")
	}
	if got := err.Error(); got != strings.Join(want, "\n") {
		t.Errorf("error:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}
