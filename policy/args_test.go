package policy

import (
	"errors"
	"strings"
	"testing"
)

// Every argument of the strategies is validated, each problem reported
// with its field path and value, in the order of the fields.
func TestLoadValidatesStrategyArguments(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{
			name: "taints: include and exclude together, bad and repeated entries",
			yaml: `
strategies:
  RemovePodsViolatingNodeTaints:
    excludedTaints: [dedicated, "bad key!", "k=bad value!", dedicated, ""]
    includedTaints: [gpu]
`,
			want: []string{
				`strategies.RemovePodsViolatingNodeTaints: set includedTaints or excludedTaints, not both`,
				`strategies.RemovePodsViolatingNodeTaints.excludedTaints[1]: "bad key!" does not start with a taint key: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
				`strategies.RemovePodsViolatingNodeTaints.excludedTaints[2]: "k=bad value!" does not end with a taint value: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
				`strategies.RemovePodsViolatingNodeTaints.excludedTaints[3]: "dedicated" is listed twice`,
				`strategies.RemovePodsViolatingNodeTaints.excludedTaints[4]: is required (a taint as "key" or "key=value")`,
			},
		},
		{
			name: "taints: includePreferNoSchedule is a boolean",
			yaml: "strategies:\n  RemovePodsViolatingNodeTaints: {includePreferNoSchedule: yes please}\n",
			want: []string{`strategies.RemovePodsViolatingNodeTaints.includePreferNoSchedule: a string where true or false is expected`},
		},
		{
			name: "node affinity: nodeAffinityType is required",
			yaml: "strategies:\n  RemovePodsViolatingNodeAffinity: {}\n",
			want: []string{`strategies.RemovePodsViolatingNodeAffinity.nodeAffinityType: is required (list requiredDuringSchedulingIgnoredDuringExecution, preferredDuringSchedulingIgnoredDuringExecution or both)`},
		},
		{
			name: "node affinity: unknown and repeated types",
			yaml: "strategies:\n  RemovePodsViolatingNodeAffinity:\n    nodeAffinityType: [required, preferredDuringSchedulingIgnoredDuringExecution, preferredDuringSchedulingIgnoredDuringExecution]\n",
			want: []string{
				`strategies.RemovePodsViolatingNodeAffinity.nodeAffinityType[0]: "required" is not supported; supported values: "requiredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution"`,
				`strategies.RemovePodsViolatingNodeAffinity.nodeAffinityType[2]: "preferredDuringSchedulingIgnoredDuringExecution" is listed twice`,
			},
		},
		{
			name: "inter-pod anti-affinity: the common arguments",
			yaml: "strategies:\n  RemovePodsViolatingInterPodAntiAffinity:\n    namespaces: {include: [a], exclude: [b]}\n    labelSelector: {matchExpressions: [{key: app, operator: Equals}]}\n",
			want: []string{
				`strategies.RemovePodsViolatingInterPodAntiAffinity.namespaces: set include or exclude, not both`,
				`strategies.RemovePodsViolatingInterPodAntiAffinity.labelSelector.matchExpressions[0].operator: "Equals" not a valid selector operator`,
			},
		},
		{
			name: "topology spread: constraints",
			yaml: "strategies:\n  RemovePodsViolatingTopologySpreadConstraint: {constraints: [DoNotSchedule, Sometimes, DoNotSchedule]}\n",
			want: []string{
				`strategies.RemovePodsViolatingTopologySpreadConstraint.constraints[1]: "Sometimes" is not supported; supported values: "DoNotSchedule", "ScheduleAnyway"`,
				`strategies.RemovePodsViolatingTopologySpreadConstraint.constraints[2]: "DoNotSchedule" is listed twice`,
			},
		},
		{
			name: "too many restarts: podRestartThreshold is required",
			yaml: "strategies:\n  RemovePodsHavingTooManyRestarts: {}\n",
			want: []string{`strategies.RemovePodsHavingTooManyRestarts.podRestartThreshold: is required (the number of restarts at which a pod moves, at least 1)`},
		},
		{
			name: "too many restarts: threshold below 1, unknown state",
			yaml: "strategies:\n  RemovePodsHavingTooManyRestarts: {podRestartThreshold: -3, states: [Crashing, Running]}\n",
			want: []string{
				`strategies.RemovePodsHavingTooManyRestarts.podRestartThreshold: -3 is below 1`,
				`strategies.RemovePodsHavingTooManyRestarts.states[0]: "Crashing" is not supported; supported values: "CrashLoopBackOff", "Running"`,
			},
		},
		{
			// The descheduler asks for one filtering criterion at least.
			name: "pod lifetime: maxPodLifeTimeSeconds is required without states, conditions or exitCodes",
			yaml: "strategies:\n  PodLifeTime: {ownerKinds: {include: [Job]}}\n",
			want: []string{`strategies.PodLifeTime.maxPodLifeTimeSeconds: is required (the age in seconds past which pods move, e.g. 86400 for a day, or states, conditions or exitCodes)`},
		},
		{
			name: "pod lifetime: negative, unknown state",
			yaml: "strategies:\n  PodLifeTime: {maxPodLifeTimeSeconds: -1, states: [Running, Done]}\n",
			want: []string{
				`strategies.PodLifeTime.maxPodLifeTimeSeconds: -1 is negative`,
				`strategies.PodLifeTime.states[1]: "Done" is not supported; supported values: "Running", "Pending", "Succeeded", "Failed", "Unknown", "NodeAffinity", "NodeLost", "Shutdown", "UnexpectedAdmissionError", "PodInitializing", "ContainerCreating", "ImagePullBackOff", "CrashLoopBackOff", "CreateContainerConfigError", "ErrImagePull", "CreateContainerError", "InvalidImageName", "OOMKilled", "Error", "Completed", "DeadlineExceeded", "Evicted", "ContainerCannotRun", "StartError"`,
			},
		},
		{
			name: "pod lifetime: conditions, exit codes and owner kinds",
			yaml: "strategies:\n  PodLifeTime:\n    conditions: [{}, {type: Ready, status: Maybe, minTimeSinceLastTransitionSeconds: -1}]\n" +
				"    exitCodes: [1, 1]\n    ownerKinds: {include: [Job], exclude: [\"\"]}\n",
			want: []string{
				`strategies.PodLifeTime.conditions[0]: is required (at least one of type, status, reason or minTimeSinceLastTransitionSeconds)`,
				`strategies.PodLifeTime.conditions[1].status: "Maybe" is not supported; supported values: "True", "False", "Unknown"`,
				`strategies.PodLifeTime.conditions[1].minTimeSinceLastTransitionSeconds: -1 is negative`,
				`strategies.PodLifeTime.exitCodes[1]: 1 is listed twice`,
				`strategies.PodLifeTime.ownerKinds: set include or exclude, not both`,
				`strategies.PodLifeTime.ownerKinds.exclude[0]: is required (an owner kind such as Job)`,
			},
		},
		{
			name: "utilization: evictableNamespaces, evictionLimits and evictionModes",
			yaml: "strategies:\n  HighNodeUtilization:\n    thresholds: {cpu: 20}\n    evictionModes: [OnlyThresholdingResources, All]\n" +
				"    evictableNamespaces: {include: [a], exclude: [b]}\n",
			want: []string{
				`strategies.HighNodeUtilization.evictionModes[1]: "All" is not supported; supported values: "OnlyThresholdingResources"`,
				`strategies.HighNodeUtilization.evictableNamespaces: set include or exclude, not both`,
			},
		},
		{
			name: "low utilization: a negative evictionLimits.node",
			yaml: "strategies:\n  LowNodeUtilization:\n    thresholds: {cpu: 20}\n    targetThresholds: {cpu: 50}\n" +
				"    evictionLimits: {node: -1}\n    evictableNamespaces: {exclude: [Not_A_Namespace]}\n",
			want: []string{
				`strategies.LowNodeUtilization.evictableNamespaces.exclude[0]: "Not_A_Namespace" is not a namespace name: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
				`strategies.LowNodeUtilization.evictionLimits.node: -1 is negative`,
			},
		},
		{
			name: "pod lifetime: zero would evict everything forever",
			yaml: "strategies:\n  PodLifeTime: {maxPodLifeTimeSeconds: 0}\n",
			want: []string{`strategies.PodLifeTime.maxPodLifeTimeSeconds: 0 would move every pod, and its replacement, on every run; give an age in seconds, e.g. 86400`},
		},
		{
			name: "failed pods: empty and repeated entries, negative age",
			yaml: "strategies:\n  RemoveFailedPods: {reasons: [\"\", OOMKilled, OOMKilled], exitCodes: [1, 1], excludeOwnerKinds: [\"\"], minPodLifetimeSeconds: -5}\n",
			want: []string{
				`strategies.RemoveFailedPods.reasons[0]: is required (a reason such as OOMKilled)`,
				`strategies.RemoveFailedPods.reasons[2]: "OOMKilled" is listed twice`,
				`strategies.RemoveFailedPods.excludeOwnerKinds[0]: is required (an owner kind such as Job)`,
				`strategies.RemoveFailedPods.exitCodes[1]: 1 is listed twice`,
				`strategies.RemoveFailedPods.minPodLifetimeSeconds: -5 is negative`,
			},
		},
		{
			name: "high utilization: thresholds are required",
			yaml: "strategies:\n  HighNodeUtilization: {}\n",
			want: []string{`strategies.HighNodeUtilization.thresholds: is required (list at least one resource, e.g. {cpu: 20, memory: 20, pods: 20}, or give nodePools)`},
		},
		{
			name: "high utilization: threshold above 100, negative numberOfNodes",
			yaml: "strategies:\n  HighNodeUtilization: {thresholds: {cpu: 120}, numberOfNodes: -1}\n",
			want: []string{
				`strategies.HighNodeUtilization.thresholds.cpu: 120 is above 100`,
				`strategies.HighNodeUtilization.numberOfNodes: -1 is negative`,
			},
		},
		{
			name: "high utilization: targetThresholds are percentages above the thresholds",
			yaml: "strategies:\n  HighNodeUtilization:\n    thresholds: {cpu: 20, memory: 30}\n    targetThresholds: {cpu: 120, memory: 30, pods: 80}\n    minImprovement: -1\n" +
				"    nodePools:\n    - {name: gpu, nodeSelector: {matchLabels: {pool: gpu}}, thresholds: {cpu: 50}, targetThresholds: {cpu: 40}}\n",
			want: []string{
				`strategies.HighNodeUtilization.targetThresholds.cpu: 120 is above 100`,
				`strategies.HighNodeUtilization.targetThresholds.memory: 30 is not above thresholds.memory (30)`,
				`strategies.HighNodeUtilization.minImprovement: -1 is below 0`,
				`strategies.HighNodeUtilization.nodePools[0].targetThresholds.cpu: 40 is not above thresholds.cpu (50)`,
			},
		},
		{
			name: "minImprovement: percentage points, or a count",
			yaml: "strategies:\n  LowNodeUtilization: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}, minImprovement: 101}\n" +
				"  RemoveDuplicates: {minImprovement: -1}\n  RemovePodsViolatingTopologySpreadConstraint: {minImprovement: -2}\n",
			want: []string{
				`strategies.RemoveDuplicates.minImprovement: -1 is negative`,
				`strategies.RemovePodsViolatingTopologySpreadConstraint.minImprovement: -2 is negative`,
				`strategies.LowNodeUtilization.minImprovement: 101 is above 100`,
			},
		},
		{
			name: "low and high utilization contradict each other",
			yaml: "strategies:\n  LowNodeUtilization: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}\n  HighNodeUtilization: {thresholds: {cpu: 20}, enabled: false}\n",
			want: []string{`strategies.HighNodeUtilization: cannot be configured together with LowNodeUtilization: LowNodeUtilization moves pods onto the least used nodes, HighNodeUtilization empties those nodes, and each would undo the other on the next run; keep one`},
		},
		{
			name: "an override cannot bring in the other utilization strategy",
			yaml: "strategies:\n  LowNodeUtilization: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}\noverrides:\n- namespaces: [batch]\n  strategies:\n    HighNodeUtilization: {enabled: true}\n",
			want: []string{`overrides[0].strategies.HighNodeUtilization: HighNodeUtilization classifies nodes, which the pods of every namespace share: configure it globally; an override can only turn it off or set its pod-level arguments`},
		},
		{
			name: "node pools: names, selectors, thresholds, pools bound to share nodes",
			yaml: `
strategies:
  HighNodeUtilization:
    nodePools:
    - {name: gpu, nodeSelector: {matchLabels: {pool: gpu}}, thresholds: {cpu: 50}}
    - {name: gpu, nodeSelector: {matchLabels: {pool: gpu, zone: a}}, thresholds: {cpu: 50}}
    - {name: Bad_Name, thresholds: {cpu: 150}}
    - {name: rest, nodeSelector: {}, thresholds: {memory: 10}}
    - {name: none, nodeSelector: {matchExpressions: [{key: pool, operator: Exists}, {key: pool, operator: DoesNotExist}]}, thresholds: {memory: 10}}
`,
			want: []string{
				`strategies.HighNodeUtilization.nodePools[1].name: "gpu" is listed twice`,
				`strategies.HighNodeUtilization.nodePools[1].nodeSelector: {"matchLabels":{"pool":"gpu","zone":"a"}} selects only nodes that nodePools[0] (gpu) selects too: a node belongs to one pool only`,
				`strategies.HighNodeUtilization.nodePools[2].name: "Bad_Name" is not a valid pool name: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
				`strategies.HighNodeUtilization.nodePools[2].nodeSelector: is required (the labels of the pool's nodes, e.g. {matchLabels: {pool: gpu}})`,
				`strategies.HighNodeUtilization.nodePools[2].thresholds.cpu: 150 is above 100`,
				`strategies.HighNodeUtilization.nodePools[3].nodeSelector: {} selects every node that nodePools[0] (gpu) selects: a node belongs to one pool only`,
				`strategies.HighNodeUtilization.nodePools[4].nodeSelector: {"matchExpressions":[{"key":"pool","operator":"Exists"},{"key":"pool","operator":"DoesNotExist"}]} selects no node: its requirements on "pool" contradict each other`,
			},
		},
		{
			name: "node pools: thresholds of each pool, checked like the top-level ones",
			yaml: `
strategies:
  LowNodeUtilization:
    nodePools:
    - {name: gpu, nodeSelector: {matchLabels: {pool: gpu}}, thresholds: {cpu: 50}, targetThresholds: {cpu: 40}}
    - {name: batch, nodeSelector: {matchLabels: {pool: batch}}, thresholds: {cpu: 10}}
`,
			want: []string{
				`strategies.LowNodeUtilization.nodePools[0].targetThresholds.cpu: 40 is below thresholds.cpu (50)`,
				`strategies.LowNodeUtilization.nodePools[1].targetThresholds: is required (list the same resources as thresholds, e.g. {cpu: 50, memory: 50, pods: 50})`,
			},
		},
		{
			name: "node pools: half of the top-level pair is still an error",
			yaml: "strategies:\n  LowNodeUtilization:\n    thresholds: {cpu: 20}\n    nodePools:\n    - {name: gpu, nodeSelector: {matchLabels: {pool: gpu}}, thresholds: {cpu: 50}, targetThresholds: {cpu: 60}}\n",
			want: []string{`strategies.LowNodeUtilization.targetThresholds: is required (list the same resources as thresholds, e.g. {cpu: 50, memory: 50, pods: 50})`},
		},
		{
			name: "node pools are node-level: not in an override",
			yaml: `
strategies:
  LowNodeUtilization:
    nodePools:
    - {name: gpu, nodeSelector: {matchLabels: {pool: gpu}}, thresholds: {cpu: 50}, targetThresholds: {cpu: 60}}
overrides:
- namespaces: [a]
  strategies:
    LowNodeUtilization:
      nodePools: [{name: x, nodeSelector: {matchLabels: {pool: x}}, thresholds: {cpu: 1}, targetThresholds: {cpu: 2}}]
`,
			want: []string{`overrides[0].strategies.LowNodeUtilization.nodePools: is a node-level setting, shared by the pods of every namespace: set it globally, not in an override`},
		},
		{
			name: "an override's pod-level arguments are validated too",
			yaml: "strategies:\n  PodLifeTime: {maxPodLifeTimeSeconds: 86400}\noverrides:\n- namespaces: [a]\n  strategies:\n    PodLifeTime: {states: [Done]}\n",
			want: []string{`overrides[0].strategies.PodLifeTime.states[0]: "Done" is not supported; supported values: "Running", "Pending", "Succeeded", "Failed", "Unknown", "NodeAffinity", "NodeLost", "Shutdown", "UnexpectedAdmissionError", "PodInitializing", "ContainerCreating", "ImagePullBackOff", "CrashLoopBackOff", "CreateContainerConfigError", "ErrImagePull", "CreateContainerError", "InvalidImageName", "OOMKilled", "Error", "Completed", "DeadlineExceeded", "Evicted", "ContainerCannotRun", "StartError"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load([]byte(header+tt.yaml), "policy.yaml")
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("Load() error = %v, want a *policy.Error", err)
			}
			want := make([]string, len(tt.want))
			for i, w := range tt.want {
				want[i] = "policy.yaml: " + w
			}
			if got := err.Error(); got != strings.Join(want, "\n") {
				t.Errorf("Load() error:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
			}
		})
	}
}

// Pools that may or may not share nodes, depending on labels the policy
// cannot see, load: a node that matches both belongs to the first.
func TestNodePoolsThatMayShareNodes(t *testing.T) {
	_, err := Load([]byte(header+`
strategies:
  HighNodeUtilization:
    nodePools:
    - {name: gpu, nodeSelector: {matchLabels: {pool: gpu}}, thresholds: {cpu: 50}}
    - {name: cpu, nodeSelector: {matchExpressions: [{key: pool, operator: NotIn, values: [gpu]}]}, thresholds: {cpu: 40}}
    - {name: zone-a, nodeSelector: {matchLabels: {zone: a}}, thresholds: {cpu: 30}}
    - {name: spot, nodeSelector: {matchExpressions: [{key: lifecycle, operator: In, values: [spot, preemptible]}]}, thresholds: {cpu: 30}}
    - {name: preemptible, nodeSelector: {matchExpressions: [{key: lifecycle, operator: In, values: [preemptible, other]}]}, thresholds: {cpu: 30}}
`), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
}

// Enabled lists the strategies in the order they run, whatever the order
// of the policy file.
func TestEnabledInRunOrder(t *testing.T) {
	p, err := Load([]byte(header+`
strategies:
  RemovePodsViolatingTopologySpreadConstraint: {}
  RemoveFailedPods: {}
  RemovePodsViolatingNodeTaints: {}
  RemovePodsHavingTooManyRestarts: {podRestartThreshold: 5}
`), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Enabled(), ","); got != "RemovePodsViolatingNodeTaints,RemovePodsHavingTooManyRestarts,RemoveFailedPods,RemovePodsViolatingTopologySpreadConstraint" {
		t.Errorf("Enabled() = %s, want the violation strategies before the balancing one", got)
	}
}
