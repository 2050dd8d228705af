package policy

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

const header = "apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\n"

func TestLoadReportsEachProblemWithPathAndValue(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string // every line expected, in order
	}{
		{
			name: "two documents: the second would otherwise be dropped",
			yaml: header + "limits: {total: 3}\n---\n" + header + "limits: {total: 5}\n",
			want: []string{"policy.yaml: the file holds 2 YAML documents: a policy file holds one RebalancePolicy"},
		},
		{
			name: "an empty file is no policy that moves nothing",
			yaml: "",
			want: []string{"policy.yaml: the file holds no policy (it is empty, or only comments): a RebalancePolicy (apiVersion: rebalancer.dev/v1alpha1) is expected; examples/policy.yaml shows one"},
		},
		{
			name: "only comments",
			yaml: "# limits: {total: 3}\n---\n# nothing here either\n",
			want: []string{"policy.yaml: the file holds no policy (it is empty, or only comments): a RebalancePolicy (apiVersion: rebalancer.dev/v1alpha1) is expected; examples/policy.yaml shows one"},
		},
		{
			name: "a duration that is not one, beside another problem",
			yaml: header + "cooldown: 5 parsecs\nlimits: {perNode: -1}\n",
			want: []string{
				`policy.yaml: cooldown: Invalid value: "5 parsecs": not a duration; give one such as 90s, 5m or 1h30m`,
				"policy.yaml: limits.perNode: -1 is negative (leave it out for no limit)",
			},
		},
		{
			name: "target threshold above 100",
			yaml: header + `
strategies:
  LowNodeUtilization:
    thresholds: {cpu: 20}
    targetThresholds: {cpu: 120}
`,
			want: []string{"policy.yaml: strategies.LowNodeUtilization.targetThresholds.cpu: 120 is above 100"},
		},
		{
			name: "negative threshold and target below threshold",
			yaml: header + `
strategies:
  LowNodeUtilization:
    thresholds: {cpu: -5, memory: 60}
    targetThresholds: {cpu: 50, memory: 40}
`,
			want: []string{
				"policy.yaml: strategies.LowNodeUtilization.thresholds.cpu: -5 is below 0",
				"policy.yaml: strategies.LowNodeUtilization.targetThresholds.memory: 40 is below thresholds.memory (60)",
			},
		},
		{
			name: "thresholds and targets list different resources",
			yaml: header + `
strategies:
  LowNodeUtilization:
    thresholds: {cpu: 20, pods: 20}
    targetThresholds: {cpu: 50, memory: 50}
`,
			want: []string{
				"policy.yaml: strategies.LowNodeUtilization.targetThresholds.pods: is required (thresholds lists pods)",
				"policy.yaml: strategies.LowNodeUtilization.targetThresholds.memory: 50 is not listed in thresholds",
			},
		},
		{
			name: "thresholds missing",
			yaml: header + "strategies:\n  LowNodeUtilization: {}\n",
			want: []string{
				"policy.yaml: strategies.LowNodeUtilization.thresholds: is required (list at least one resource, e.g. {cpu: 20, memory: 20, pods: 20})",
				"policy.yaml: strategies.LowNodeUtilization.targetThresholds: is required (list the same resources as thresholds, e.g. {cpu: 50, memory: 50, pods: 50})",
			},
		},
		{
			name: "not a resource name",
			yaml: header + `
strategies:
  LowNodeUtilization:
    thresholds: {gpu: 20}
    targetThresholds: {gpu: 50}
`,
			want: []string{
				`policy.yaml: strategies.LowNodeUtilization.thresholds.gpu: "gpu" is not a resource name (cpu, memory, pods, ephemeral-storage, hugepages-<size> or an extended resource such as nvidia.com/gpu)`,
				`policy.yaml: strategies.LowNodeUtilization.targetThresholds.gpu: "gpu" is not a resource name (cpu, memory, pods, ephemeral-storage, hugepages-<size> or an extended resource such as nvidia.com/gpu)`,
			},
		},
		{
			name: "unknown fields everywhere",
			yaml: header + `
limit: {total: 3}
evictable: {systemCriticl: true}
strategies:
  LowNodeUtilisation: {}
`,
			want: []string{
				"policy.yaml: evictable.systemCriticl: unknown field",
				"policy.yaml: limit: unknown field",
				"policy.yaml: strategies.LowNodeUtilisation: unknown strategy; did you mean LowNodeUtilization?",
			},
		},
		{
			name: "wrong apiVersion and kind",
			yaml: "apiVersion: descheduler/v1beta1\nkind: DeschedulerPolicy\n",
			want: []string{
				`policy.yaml: apiVersion: "descheduler/v1beta1" is not supported; supported values: "rebalancer.dev/v1alpha1", "descheduler/v1alpha2", "descheduler/v1alpha1"`,
				`policy.yaml: kind: "DeschedulerPolicy" is not supported; supported values: "RebalancePolicy"`,
			},
		},
		{
			name: "negative limits and grace period",
			yaml: header + "limits: {perNode: -1, total: -2}\ngracePeriodSeconds: -30\n",
			want: []string{
				"policy.yaml: limits.perNode: -1 is negative (leave it out for no limit)",
				"policy.yaml: limits.total: -2 is negative (leave it out for no limit)",
				"policy.yaml: gracePeriodSeconds: -30 is negative",
			},
		},
		{
			name: "a former limit beside its new name",
			yaml: header + "limits: {perNode: 2, perWorkload: 1, perStep: {node: 1, workload: 1}}\noverrides:\n- namespaces: [a]\n  limits: {perNamespace: 1, perStep: {namespace: 2}}\n",
			want: []string{
				"policy.yaml: limits.perNode: is the former name of limits.perStep.node, which is set too: keep limits.perStep.node",
				"policy.yaml: limits.perWorkload: is the former name of limits.perStep.workload, which is set too: keep limits.perStep.workload",
				"policy.yaml: overrides[0].limits.perNamespace: is the former name of overrides[0].limits.perStep.namespace, which is set too: keep overrides[0].limits.perStep.namespace",
			},
		},
		{
			name: "limits per run and per step out of range",
			yaml: header + "limits: {perRun: {node: -1, workload: 101%}, perStep: {namespace: -2, workload: \"1.5%\"}}\noverrides:\n- namespaces: [a]\n  limits: {perRun: {namespace: -3, node: 1}}\n",
			want: []string{
				"policy.yaml: overrides[0].limits.perRun.node: unknown field",
				"policy.yaml: limits.perRun.node: -1 is negative (leave it out for no limit)",
				`policy.yaml: limits.perRun.workload: "101%" is above 100%`,
				"policy.yaml: limits.perStep.namespace: -2 is negative (leave it out for no limit)",
				`policy.yaml: limits.perStep.workload: "1.5%" is neither a whole number nor a percentage ("25%")`,
				"policy.yaml: overrides[0].limits.perRun.namespace: -3 is negative (leave it out for no limit)",
			},
		},
		{
			name: "a grace period too large to count",
			yaml: header + "gracePeriodSeconds: 9223372036854775807\n",
			want: []string{
				"policy.yaml: gracePeriodSeconds: 9223372036854775807 is above 86400 (a day); leave it out to keep each pod's own terminationGracePeriodSeconds",
			},
		},
		{
			name: "null where a limit is expected, as a template that rendered nothing writes it",
			yaml: header + "limits: {total: null, perNode: ~}\noverrides:\n- namespaces: [a]\n  limits: {perNamespace: null}\n",
			want: []string{
				"policy.yaml: limits.perNode: null where a whole number is expected: give one, or leave the field out",
				"policy.yaml: limits.total: null where a whole number is expected: give one, or leave the field out",
				"policy.yaml: overrides[0].limits.perNamespace: null where a whole number is expected: give one, or leave the field out",
			},
		},
		{
			name: "an infinite number, named by its field",
			yaml: header + "limits: {total: .inf}\n",
			want: []string{`policy.yaml: limits.total: ".inf" is not a finite number`},
		},
		{
			name: "not a number in a list of an override",
			yaml: header + "overrides:\n- namespaces: [a]\n  limits: {perNamespace: -.Inf}\n",
			want: []string{`policy.yaml: overrides[0].limits.perNamespace: "-.Inf" is not a finite number`},
		},
		{
			// A file given by mistake: its lines are not quoted back.
			name: "a file that is no policy at all",
			yaml: "root:$6$salt$hash:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n",
			want: []string{
				"policy.yaml: the file is not a policy: it has neither apiVersion nor kind (a RebalancePolicy, apiVersion: rebalancer.dev/v1alpha1, is expected; examples/policy.yaml shows one)",
			},
		},
		{
			name: "namespaces include and exclude together, bad name",
			yaml: header + "namespaces: {include: [a], exclude: [Bad_Name]}\n",
			want: []string{
				"policy.yaml: namespaces: set include or exclude, not both",
				`policy.yaml: namespaces.exclude[0]: "Bad_Name" is not a namespace name: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
			},
		},
		{
			name: "priority threshold with both value and name, and with systemCritical",
			yaml: header + "evictable:\n  systemCritical: true\n  priorityThreshold: {value: 1000, name: high}\n",
			want: []string{
				`policy.yaml: evictable.priorityThreshold: {"value":1000,"name":"high"} sets both value and name; set one`,
				"policy.yaml: evictable.priorityThreshold: has no effect when systemCritical is true, which lets pods of any priority be evicted",
			},
		},
		{
			name: "negative cooldown",
			yaml: header + "cooldown: -1m\n",
			want: []string{`policy.yaml: cooldown: "-1m0s" is negative (0 turns the cooldown off)`},
		},
		{
			name: "replacements neither steered nor predicted",
			yaml: header + "replacements: guessed\n",
			want: []string{`policy.yaml: replacements: "guessed" is not supported; supported values: "steered", "predicted"`},
		},
		{
			name: "negative minPodAge",
			yaml: header + "evictable: {minPodAge: -5m}\n",
			want: []string{`policy.yaml: evictable.minPodAge: "-5m0s" is negative`},
		},
		{
			name: "negative minReplicas",
			yaml: header + "evictable: {minReplicas: -2}\n",
			want: []string{"policy.yaml: evictable.minReplicas: -2 is negative (0 keeps no pod for its replica count)"},
		},
		{
			name: "bad namespace selector operator",
			yaml: header + "evictable:\n  namespaceSelector:\n    matchExpressions: [{key: team, operator: In}]\n",
			want: []string{"policy.yaml: evictable.namespaceSelector.matchExpressions[0].values: is required (must be specified when `operator` is 'In' or 'NotIn')"},
		},
		{
			name: "an override narrows its own namespaces, not with evictable.namespaceSelector",
			yaml: header + `
overrides:
- namespaces: [shop]
  evictable:
    namespaceSelector: {matchLabels: {rebalance: allowed}}
`,
			want: []string{"policy.yaml: overrides[0].evictable.namespaceSelector: an override applies to the namespaces its namespaces or namespaceSelector chooses: " +
				"narrow those, or set evictable.namespaceSelector globally"},
		},
		{
			name: "bad label selector operator",
			yaml: header + "evictable:\n  labelSelector:\n    matchExpressions: [{key: app, operator: Equals, values: [web]}]\n",
			want: []string{`policy.yaml: evictable.labelSelector.matchExpressions[0].operator: "Equals" not a valid selector operator`},
		},
		{
			name: "override with neither namespaces nor selector, and a node-level argument",
			yaml: header + `
strategies:
  LowNodeUtilization:
    thresholds: {cpu: 20}
    targetThresholds: {cpu: 50}
overrides:
- strategies:
    LowNodeUtilization:
      thresholds: {cpu: 10}
`,
			want: []string{
				"policy.yaml: overrides[0].namespaces: is required (an override applies to namespaces by name or by namespaceSelector)",
				"policy.yaml: overrides[0].strategies.LowNodeUtilization.thresholds: is a node-level setting, shared by the pods of every namespace: set it globally, not in an override",
			},
		},
		{
			name: "override configures a node-level strategy the global policy lacks",
			yaml: header + `
overrides:
- namespaces: [batch]
  strategies:
    LowNodeUtilization: {enabled: true}
`,
			want: []string{
				"policy.yaml: overrides[0].strategies.LowNodeUtilization: LowNodeUtilization classifies nodes, which the pods of every namespace share: configure it globally; an override can only turn it off or set its pod-level arguments",
			},
		},
		{
			name: "override limits other than perNamespace are unknown",
			yaml: header + "overrides:\n- namespaces: [a]\n  limits: {total: 3}\n",
			want: []string{"policy.yaml: overrides[0].limits.total: unknown field"},
		},
		{
			name: "an error inherited from the global settings is reported once",
			yaml: header + `
evictable: {minPodAge: -1s}
overrides:
- namespaces: [a]
  evictable: {pvc: false}
`,
			want: []string{`policy.yaml: evictable.minPodAge: "-1s" is negative`},
		},
		{
			name: "a StorageClass name that cannot be one",
			yaml: header + "evictable: {pvcStorageClasses: [standard, Fast_SSD]}\n",
			want: []string{`policy.yaml: evictable.pvcStorageClasses[1]: "Fast_SSD" a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		},
		{
			name: "duplicate key",
			yaml: header + "limits: {total: 1}\nlimits: {total: 2}\n",
			want: []string{"policy.yaml: yaml: unmarshal errors:\n  line 4: key \"limits\" already set in map"},
		},
		{
			name: "wrong type",
			yaml: header + "limits: {total: many}\n",
			want: []string{`policy.yaml: limits.total: a string where a whole number is expected`},
		},
		{
			name: "implicitBudgets is true or false",
			yaml: header + "implicitBudgets: 1\n",
			want: []string{`policy.yaml: implicitBudgets: a number where true or false is expected`},
		},
		{
			name: "values of the wrong type do not hide unknown fields, bad values or each other",
			yaml: header + `
limits: {perNode: five, total: -2}
cooldown: 5
maxEvictions: 10
evictable: {minPodAge: -5m, barePods: "no"}
overrides:
- namespaces: [a]
  limits: {perNamespace: 1}
- namespaces: [b]
  limits: {perNamespace: many}
  strategies:
    PodLifeTime: {maxPodLifeTimeSeconds: [3600]}
strategies:
  LowNodeUtilization:
    thresholds: {cpu: "20%", memory: 20}
    targetThresholds: {cpu: 50, memory: 120}
  PodLifeTime: {maxPodLifeTimeSeconds: 1h, stats: [Pending]}
`,
			want: []string{
				"policy.yaml: cooldown: a number where a duration such as 5m is expected",
				"policy.yaml: evictable.barePods: a string where true or false is expected",
				"policy.yaml: limits.perNode: a string where a whole number is expected",
				"policy.yaml: maxEvictions: unknown field",
				"policy.yaml: overrides[1].limits.perNamespace: a string where a whole number is expected",
				"policy.yaml: overrides[1].strategies.PodLifeTime.maxPodLifeTimeSeconds: an array where a whole number is expected",
				"policy.yaml: strategies.LowNodeUtilization.thresholds.cpu: a string where a number is expected",
				"policy.yaml: strategies.PodLifeTime.maxPodLifeTimeSeconds: a string where a whole number is expected",
				"policy.yaml: strategies.PodLifeTime.stats: unknown field",
				"policy.yaml: limits.total: -2 is negative (leave it out for no limit)",
				`policy.yaml: evictable.minPodAge: "-5m0s" is negative`,
				"policy.yaml: strategies.LowNodeUtilization.targetThresholds.memory: 120 is above 100",
			},
		},
		{
			name: "a list item of the wrong type keeps the indexes of the items after it",
			yaml: header + `
namespaces: {exclude: [kube-system, 7, Bad_Name]}
overrides:
- [batch]
- namespaces: [web]
  limits: {perNamespace: -1}
`,
			want: []string{
				"policy.yaml: namespaces.exclude[1]: a number where a string is expected",
				"policy.yaml: overrides[0]: an array where an object is expected",
				`policy.yaml: namespaces.exclude[2]: "Bad_Name" is not a namespace name: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
				"policy.yaml: overrides[1].limits.perNamespace: -1 is negative (leave it out for no limit)",
			},
		},
		{
			name: "a value of the wrong type is not also reported missing",
			yaml: header + "strategies:\n  PodLifeTime: {maxPodLifeTimeSeconds: forever}\n",
			want: []string{"policy.yaml: strategies.PodLifeTime.maxPodLifeTimeSeconds: a string where a whole number is expected"},
		},
		{
			name: "strategies of the wrong type",
			yaml: header + "strategies: [LowNodeUtilization]\nlimits: {total: -1}\n",
			want: []string{
				"policy.yaml: strategies: an array where an object is expected",
				"policy.yaml: limits.total: -1 is negative (leave it out for no limit)",
			},
		},
		{
			name: "a grace period of 0 is a force deletion",
			yaml: header + "gracePeriodSeconds: 0\n",
			want: []string{"policy.yaml: gracePeriodSeconds: 0 is a force deletion: the pod object goes at once while its containers may still run, " +
				"so its replacement can run beside it (two StatefulSet pods with one identity, a ReadWriteOnce volume used twice); " +
				"set 1 or more, or leave it out to keep each pod's own"},
		},
		{
			name: "a policy that is not an object says so alone",
			yaml: "just a string\n",
			want: []string{"policy.yaml: the policy: a string where an object is expected"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load([]byte(tt.yaml), "policy.yaml")
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("Load() error = %v, want a *policy.Error", err)
			}
			if got, want := err.Error(), strings.Join(tt.want, "\n"); got != want {
				t.Errorf("Load() error:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestLoadDefaults(t *testing.T) {
	p, err := Load([]byte(header+"strategies:\n  RemoveDuplicates: {}\n"), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ev := p.Global().Evictable
	if *ev.SystemCritical || *ev.LocalStorage || !*ev.PVC || *ev.BarePods || ev.MinPodAge.Duration != 0 {
		t.Errorf("evictable defaults = systemCritical %v, localStorage %v, pvc %v, barePods %v, minPodAge %v; want false, false, true, false, 0",
			*ev.SystemCritical, *ev.LocalStorage, *ev.PVC, *ev.BarePods, ev.MinPodAge.Duration)
	}
	if l := p.Limits; l.PerNode != nil || l.PerNamespace != nil || l.PerWorkload != nil || l.Total != nil {
		t.Errorf("limits = %+v, want none (unlimited)", l)
	}
	if p.Cooldown.Duration != 5*time.Minute {
		t.Errorf("cooldown = %v, want 5m", p.Cooldown.Duration)
	}
	if p.ImplicitBudgets == nil || !*p.ImplicitBudgets || !p.UsesImplicitBudgets() {
		t.Errorf("implicitBudgets = %v, want true", p.ImplicitBudgets)
	}
	if got := p.Enabled(); len(got) != 1 || got[0] != "RemoveDuplicates" {
		t.Errorf("Enabled() = %v, want [RemoveDuplicates]", got)
	}
}

func TestEnabledFalseTurnsAStrategyOff(t *testing.T) {
	p, err := Load([]byte(header+"strategies:\n  RemoveDuplicates: {enabled: false}\n"), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Enabled(); len(got) != 0 {
		t.Errorf("Enabled() = %v, want none", got)
	}
	if p.Global().Args("RemoveDuplicates") != nil {
		t.Error("Args(RemoveDuplicates) is set for a disabled strategy")
	}
}

// The protections descheduler users know (minReplicas, requirePDB, the pods
// of dynamic resource allocation) are off or keep their default unless set,
// and an override tunes them for its namespaces; the namespace selector is
// global and so the same for every namespace.
func TestProtectionsPerNamespace(t *testing.T) {
	p, err := Load([]byte(header+`
evictable:
  minReplicas: 2
  namespaceSelector: {matchExpressions: [{key: rebalance, operator: NotIn, values: ["off"]}]}
overrides:
- namespaces: [payments]
  evictable: {minReplicas: 3, requirePDB: true}
- namespaces: [ml]
  evictable: {resourceClaims: true, minReplicas: 0}
`), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		namespace      string
		minReplicas    int32
		requirePDB     bool
		resourceClaims bool
	}{
		{namespace: "web", minReplicas: 2},
		{namespace: "payments", minReplicas: 3, requirePDB: true},
		{namespace: "ml", minReplicas: 0, resourceClaims: true},
	}
	for _, tt := range tests {
		t.Run(tt.namespace, func(t *testing.T) {
			ev := p.For(tt.namespace, nil).Evictable
			if *ev.MinReplicas != tt.minReplicas || *ev.RequirePDB != tt.requirePDB || *ev.ResourceClaims != tt.resourceClaims {
				t.Errorf("minReplicas %d, requirePDB %v, resourceClaims %v; want %d, %v, %v",
					*ev.MinReplicas, *ev.RequirePDB, *ev.ResourceClaims, tt.minReplicas, tt.requirePDB, tt.resourceClaims)
			}
			if ev.SelectsNamespace(map[string]string{"rebalance": "off"}) || !ev.SelectsNamespace(map[string]string{"team": "a"}) {
				t.Error("the namespace selector rebalance notin (off) does not select as written")
			}
		})
	}

	d, err := Load([]byte(header), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ev := d.Global().Evictable
	if *ev.MinReplicas != 0 || *ev.RequirePDB || *ev.ResourceClaims || !ev.SelectsNamespace(map[string]string{"rebalance": "off"}) {
		t.Errorf("defaults: minReplicas %d, requirePDB %v, resourceClaims %v, a namespace selector; want 0, false, false, none",
			*ev.MinReplicas, *ev.RequirePDB, *ev.ResourceClaims)
	}
}

func TestOverrideSystemCriticalDropsInheritedThreshold(t *testing.T) {
	p, err := Load([]byte(header+`
evictable: {priorityThreshold: {value: 1000}}
overrides:
- namespaces: [ops]
  evictable: {systemCritical: true}
`), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.For("ops", nil).Evictable.PriorityThreshold; got != nil {
		t.Errorf("ops priorityThreshold = %+v, want none", got)
	}
	if got := p.For("web", nil).Evictable.PriorityThreshold; got == nil || *got.Value != 1000 {
		t.Errorf("web priorityThreshold = %+v, want 1000", got)
	}
}

// Document markers around the one policy, and comment-only documents
// beside it, are not more policies.
func TestLoadAcceptsOnePolicyBetweenMarkers(t *testing.T) {
	for _, doc := range []string{
		"---\n" + header + "limits: {total: 3}\n---\n",
		"# the cluster's policy\n---\n" + header + "limits: {total: 3}\n",
	} {
		p, err := Load([]byte(doc), "policy.yaml")
		if err != nil {
			t.Fatalf("Load(%q): %v", doc, err)
		}
		if p.Limits.Total == nil || *p.Limits.Total != 3 {
			t.Errorf("Load(%q): limits.total %v, want 3", doc, p.Limits.Total)
		}
	}
}

// A policy file is read only when it is a regular file of at most
// MaxFileSize: a path to a device or a huge file fails at once, before it
// takes the run's time and memory.
func TestLoadFileBoundsTheFile(t *testing.T) {
	dir := t.TempDir()
	large := dir + "/large.yaml"
	if err := os.WriteFile(large, []byte(header+"# "+strings.Repeat("x", MaxFileSize)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
	}{
		{name: "a device that never ends", path: "/dev/zero",
			want: "file /dev/zero: is not a regular file (it is a character device)"},
		{name: "a directory", path: dir, want: "file " + dir + ": is not a regular file (it is a directory)"},
		{name: "a policy above the limit", path: large,
			want: fmt.Sprintf("file %s: is %d bytes, larger than the limit of 1048576 bytes (1 MiB)", large, len(header)+MaxFileSize+3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadFile(tt.path)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("LoadFile() error = %v, want %q", err, tt.want)
			}
		})
	}
}
