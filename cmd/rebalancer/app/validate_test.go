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

// validate OK means plan and run accept the policy: every policy they
// refuse before reading a cluster, validate refuses, with the same words.
func TestValidateRefusesWhatPlanAndRunRefuse(t *testing.T) {
	const header = "apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\n"
	const ksc = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
	unknownPlugin := writeFile(t, "sched.yaml", ksc+"profiles:\n- plugins:\n    score:\n      enabled:\n      - name: Foo\n")
	noCluster := writeFile(t, "kubeconfig", "apiVersion: v1\nkind: Config\n")
	tests := []struct {
		name, policy string
	}{
		{"a threshold above 100", header + "strategies:\n  LowNodeUtilization: {thresholds: {cpu: 20}, targetThresholds: {cpu: 120}}\n"},
		{"an empty file", ""},
		{"two policies in one file", header + "---\n" + header},
		{"node pools that share nodes", header + "strategies:\n  HighNodeUtilization:\n    nodePools:\n" +
			"    - {name: gpu, nodeSelector: {matchLabels: {pool: gpu}}, thresholds: {cpu: 50}}\n" +
			"    - {name: gpu-a, nodeSelector: {matchLabels: {pool: gpu, zone: a}}, thresholds: {cpu: 50}}\n"},
		{"an override of a value of the wrong type", header + "overrides:\n- namespaces: [web]\n  limits: {perNamespace: two}\n"},
		{"a scheduler configuration file that is missing", header + "scheduler: {configFile: missing.yaml}\n"},
		{"a scheduler configuration file with an unknown plugin", header + "scheduler: {configFile: " + unknownPlugin + "}\n"},
		{"a scheduler configuration with a value of the wrong type", header + "scheduler:\n  config:\n    apiVersion: kubescheduler.config.k8s.io/v1\n" +
			"    kind: KubeSchedulerConfiguration\n    percentageOfNodesToScore: half\n"},
		{"an extender that prioritizes without a weight", header + "scheduler:\n  config:\n    apiVersion: kubescheduler.config.k8s.io/v1\n" +
			"    kind: KubeSchedulerConfiguration\n    extenders: [{urlPrefix: 'http://extender:8888', prioritizeVerb: prioritize}]\n"},
		{"callExtenders without a scheduler configuration", header + "scheduler: {schedulerName: default-scheduler, callExtenders: true}\n"},
		{"a schedulerName that no profile has", header + "scheduler: {schedulerName: bin-packing}\n"},
		{"a PriorityClass name the API server reserves", header + "evictable: {priorityThreshold: {name: system-high}}\n"},
		{"an override's PriorityClass name the API server reserves", header + "overrides:\n- namespaces: [web]\n  evictable: {priorityThreshold: {name: system-low}}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := writeFile(t, "policy.yaml", tt.policy)
			_, code, planErr := execute(t, "plan", "--snapshot", example, "--policy", file)
			if code != exitUsage || planErr == nil {
				t.Fatalf("plan: exit code %d (%v), want %d", code, planErr, exitUsage)
			}
			_, code, runErr := execute(t, "run", "--dry-run", "--policy", file, "--kubeconfig", noCluster)
			if code != exitUsage || runErr == nil || runErr.Error() != planErr.Error() {
				t.Errorf("run: exit code %d, error:\n%v\nwant %d and plan's:\n%v", code, runErr, exitUsage, planErr)
			}
			_, code, validateErr := execute(t, "validate", file)
			if code != exitUsage || validateErr == nil || validateErr.Error() != planErr.Error() {
				t.Errorf("validate: exit code %d, error:\n%v\nwant %d and plan's:\n%v", code, validateErr, exitUsage, planErr)
			}
		})
	}
}
