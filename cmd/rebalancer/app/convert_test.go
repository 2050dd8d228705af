package app

import (
	"fmt"
	"strings"
	"testing"
)

// convert prints a RebalancePolicy that validate accepts and that converts
// back to itself, for descheduler policies as the descheduler's chart and
// README write them.
func TestConvertRoundTripsThroughValidate(t *testing.T) {
	tests := []struct {
		name, policy string
		// contains are lines the output must hold: the descheduler's meaning
		// stated, and the comment that says why.
		contains []string
	}{
		{name: "the descheduler chart's default policy", policy: `apiVersion: "descheduler/v1alpha2"
kind: "DeschedulerPolicy"
profiles:
  - name: default
    pluginConfig:
      - name: DefaultEvictor
        args:
          podProtections:
            defaultDisabled:
            - "PodsWithLocalStorage"
            extraEnabled:
            - "PodsWithPVC"
      - name: RemoveDuplicates
      - name: RemovePodsHavingTooManyRestarts
        args:
          podRestartThreshold: 100
          includingInitContainers: true
      - name: RemovePodsViolatingNodeAffinity
        args:
          nodeAffinityType:
          - requiredDuringSchedulingIgnoredDuringExecution
      - name: RemovePodsViolatingNodeTaints
      - name: RemovePodsViolatingInterPodAntiAffinity
      - name: RemovePodsViolatingTopologySpreadConstraint
      - name: LowNodeUtilization
        args:
          thresholds: {cpu: 20, memory: 20, pods: 20}
          targetThresholds: {cpu: 50, memory: 50, pods: 50}
    plugins:
      balance:
        enabled:
          - RemoveDuplicates
          - RemovePodsViolatingTopologySpreadConstraint
          - LowNodeUtilization
      deschedule:
        enabled:
          - RemovePodsHavingTooManyRestarts
          - RemovePodsViolatingNodeTaints
          - RemovePodsViolatingNodeAffinity
          - RemovePodsViolatingInterPodAntiAffinity
`, contains: []string{"  localStorage: true", "  pvc: false", "  jobPods: true", "cooldown: 0s",
			"  # the descheduler evicts the unfinished pods of Jobs; rebalancer keeps them in place unless this allows it"}},
		{name: "a v1alpha1 policy", policy: `apiVersion: "descheduler/v1alpha1"
kind: "DeschedulerPolicy"
nodeSelector: "node=node1"
maxNoOfPodsToEvictPerNode: 10
evictLocalStoragePods: true
strategies:
  "LowNodeUtilization":
    enabled: true
    params:
      nodeResourceUtilizationThresholds:
        thresholds: {"cpu": 20, "memory": 20, "pods": 20}
        targetThresholds: {"cpu": 50, "memory": 50, "pods": 50}
  "PodLifeTime":
    enabled: true
    params:
      podLifeTime:
        maxPodLifeTimeSeconds: 86400
        podStatusPhases: ["Pending"]
`, contains: []string{"    node: node1", "  perRun:", "    node: 10", "      - Pending"}},
		{name: "profiles whose evictors differ", policy: `apiVersion: "descheduler/v1alpha2"
kind: "DeschedulerPolicy"
profiles:
  - name: restarts
    pluginConfig:
      - name: DefaultEvictor
        args:
          evictLocalStoragePods: true
      - name: RemovePodsHavingTooManyRestarts
        args:
          podRestartThreshold: 100
    plugins:
      deschedule:
        enabled:
          - RemovePodsHavingTooManyRestarts
  - name: balance
    pluginConfig:
      - name: DefaultEvictor
        args:
          minPodAge: 10m
      - name: LowNodeUtilization
        args:
          thresholds: {cpu: 20}
          targetThresholds: {cpu: 50}
    plugins:
      balance:
        enabled:
          - LowNodeUtilization
`, contains: []string{"  RemovePodsHavingTooManyRestarts:", "    evictable:", "      localStorage: true", "      minPodAge: 10m0s",
			"    # the descheduler runs this with the DefaultEvictor of profiles[1] (balance), which differs from the other profiles' here; the rest is evictable's"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code, err := execute(t, "convert", writeFile(t, "descheduler.yaml", tt.policy))
			if err != nil || code != 0 {
				t.Fatalf("convert: exit %d, %v", code, err)
			}
			for _, line := range tt.contains {
				if !strings.Contains(out, line+"\n") {
					t.Errorf("output lacks %q:\n%s", line, out)
				}
			}
			converted := writeFile(t, "policy.yaml", out)
			if _, code, err := execute(t, "validate", converted); err != nil || code != 0 {
				t.Errorf("validate of the output: exit %d, %v\n%s", code, err, out)
			}
			again, code, err := execute(t, "convert", converted)
			if err != nil || code != 0 {
				t.Fatalf("convert of the output: exit %d, %v", code, err)
			}
			if strip := func(s string) string {
				var lines []string
				for _, l := range strings.Split(s, "\n") {
					if !strings.HasPrefix(strings.TrimSpace(l), "#") {
						lines = append(lines, l)
					}
				}
				return strings.Join(lines, "\n")
			}; strip(again) != strip(out) {
				t.Errorf("converting the output again gives\n%s\nnot\n%s", again, out)
			}
		})
	}
}

// A descheduler field rebalancer cannot honour fails convert with exit 2,
// naming the field.
func TestConvertRefusesWhatItCannotHonour(t *testing.T) {
	file := writeFile(t, "descheduler.yaml", `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: p
  pluginConfig:
  - name: DefaultEvictor
    args: {noEvictionPolicy: Mandatory}
  plugins: {balance: {enabled: [RemoveDuplicates]}}
`)
	out, code, err := execute(t, "convert", file)
	if code != exitUsage || out != "" {
		t.Errorf("exit %d, output %q; want %d and nothing", code, out, exitUsage)
	}
	want := file + `: profiles[0].pluginConfig[0].args.noEvictionPolicy: rebalancer does not read descheduler.alpha.kubernetes.io/prefer-no-eviction: annotate those pods rebalancer.dev/evict: "false" instead`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

// What convert prints passes validate: a policy validate would refuse is
// not printed, and its problems are the error (exit 2). A file that is no
// regular file, or too large to be a policy, is refused before it is read.
func TestConvertPrintsOnlyWhatValidateAccepts(t *testing.T) {
	large := writeFile(t, "large.yaml", "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n# "+strings.Repeat("x", 1<<20)+"\n")
	tests := []struct {
		name, file, want string
	}{
		{
			name: "a PriorityClass name the API server reserves, v1alpha2",
			file: writeFile(t, "descheduler.yaml", `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: p
  pluginConfig:
  - name: DefaultEvictor
    args: {priorityThreshold: {name: system-foo}}
  plugins: {balance: {enabled: [RemoveDuplicates]}}
`),
			want: `: evictable.priorityThreshold.name: "system-foo" is no PriorityClass: the API server reserves the system- prefix for system-cluster-critical and system-node-critical`,
		},
		{
			name: "a PriorityClass name the API server reserves, v1alpha1",
			file: writeFile(t, "v1alpha1.yaml", `apiVersion: descheduler/v1alpha1
kind: DeschedulerPolicy
strategies:
  RemoveDuplicates:
    enabled: true
    params: {thresholdPriorityClassName: system-bar}
`),
			want: `: evictable.priorityThreshold.name: "system-bar" is no PriorityClass: the API server reserves the system- prefix for system-cluster-critical and system-node-critical`,
		},
		{
			name: "a device",
			file: "/dev/zero",
			want: ": is not a regular file (it is a character device)",
		},
		{
			name: "a file larger than any policy",
			file: large,
			want: fmt.Sprintf(": is %d bytes, larger than the limit of 1048576 bytes (1 MiB)", 1<<20+len("apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n# \n")),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code, err := execute(t, "convert", tt.file)
			if code != exitUsage || out != "" {
				t.Errorf("exit %d, output %q; want %d and nothing", code, out, exitUsage)
			}
			if err == nil || !strings.HasSuffix(err.Error(), tt.want) {
				t.Errorf("error %v, want it to end with %s", err, tt.want)
			}
		})
	}
}
