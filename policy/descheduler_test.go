package policy_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kube-rebalancer/rebalancer/policy"
)

// A descheduler field that rebalancer cannot honour is refused with its
// path in the descheduler's document and what to use instead; every
// problem is reported at once.
func TestDeschedulerPolicyErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{
			name: "v1alpha2: evictor, strategy arguments and extension points",
			yaml: `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
metricsProviders:
- source: Prometheus
profiles:
- name: default
  pluginConfig:
  - name: DefaultEvictor
    args:
      evictDaemonSetPods: true
      minReplicas: 2
  - name: LowNodeUtilization
    args:
      thresholds: {cpu: 20}
      targetThresholds: {cpu: 150}
      evictableNamespaces: {exclude: [kube-system]}
  plugins:
    preEvictionFilter:
      enabled: [DefaultEvictor]
    deschedule:
      enabled: [LowNodeUtilization]
`,
			want: []string{
				"policy.yaml: metricsProviders[0].prometheus.url: is required (the address of Prometheus' HTTP API, such as https://prometheus.monitoring.svc:9090)",
				"policy.yaml: profiles[0].pluginConfig[0].args.evictDaemonSetPods: rebalancer never evicts DaemonSet pods: the DaemonSet recreates the pod on the same node; leave them protected",
				"policy.yaml: profiles[0].pluginConfig[1].args.targetThresholds.cpu: 150 is above 100",
				`policy.yaml: profiles[0].plugins.deschedule.enabled[0]: "LowNodeUtilization" is a balance plugin: list it under plugins.balance`,
				"policy.yaml: profiles[0].plugins.preEvictionFilter: unknown field; the descheduler spells it preevictionfilter",
			},
		},
		{
			name: "v1alpha2: storage classes whose pods stay",
			yaml: `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: default
  pluginConfig:
  - name: DefaultEvictor
    args:
      podProtections:
        extraEnabled: [PodsWithPVC]
        config: {PodsWithPVC: {protectedStorageClasses: [{name: local-path}]}}
  plugins: {balance: {enabled: [RemoveDuplicates]}}
`,
			want: []string{
				"policy.yaml: profiles[0].pluginConfig[0].args.podProtections.config.PodsWithPVC.protectedStorageClasses: rebalancer lists the storage classes whose pods may move, not those that stay: set evictable.pvcStorageClasses to the cluster's other classes",
			},
		},
		{
			name: "v1alpha2: a strategy in two profiles whose evictors differ, and namespaces chosen per profile",
			yaml: `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: strict
  pluginConfig:
  - name: DefaultEvictor
    args: {namespaceLabelSelector: {matchLabels: {rebalance: "on"}}}
  - name: RemoveDuplicates
  plugins: {balance: {enabled: [RemoveDuplicates]}}
- name: lenient
  pluginConfig:
  - name: DefaultEvictor
    args: {evictLocalStoragePods: true}
  - name: RemoveDuplicates
  plugins: {balance: {enabled: [RemoveDuplicates]}}
`,
			want: []string{
				"policy.yaml: profiles[0].pluginConfig[0].args.namespaceLabelSelector: differs from the namespaceLabelSelector of the other profiles: " +
					"rebalancer chooses the namespaces it works in once, for every strategy; give every profile that runs strategies the same namespaceLabelSelector",
				`policy.yaml: profiles[1].pluginConfig[1].args: "RemoveDuplicates" runs in profiles[0] too, whose DefaultEvictor differs (localStorage, namespaceSelector): ` +
					"the descheduler runs it twice, each time with its profile's evictor, and rebalancer runs a strategy once, with one set of evictable settings: " +
					"run it in one of the profiles, or give both the same DefaultEvictor args",
			},
		},
		{
			name: "v1alpha2: failed bare pods with a strategy that moves running pods",
			yaml: `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: default
  pluginConfig:
  - name: DefaultEvictor
    args: {evictFailedBarePods: true}
  plugins: {balance: {enabled: [RemoveDuplicates]}}
`,
			want: []string{"policy.yaml: profiles[0].pluginConfig[0].args.evictFailedBarePods: rebalancer allows bare pods in every phase or in none (evictable.barePods), " +
				"and [RemoveDuplicates] would move running bare pods too: run only the strategies that move failed pods with it, or annotate the bare pods descheduler.alpha.kubernetes.io/evict"},
		},
		{
			name: "v1alpha2: sort and filter plugins rebalancer does not have",
			yaml: `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: default
  plugins:
    balance: {enabled: [RemoveDuplicates]}
    presort: {enabled: [ByAge]}
    sort: {enabled: [Foo]}
    filter: {enabled: [DefaultEvictor, ByLabel]}
`,
			want: []string{
				`policy.yaml: profiles[0].plugins.filter.enabled[1]: "ByLabel" is not supported; supported values: "DefaultEvictor"`,
				`policy.yaml: profiles[0].plugins.presort.enabled[0]: "ByAge" is not supported; rebalancer supports no presort plugin`,
				`policy.yaml: profiles[0].plugins.sort.enabled[0]: "Foo" is not supported; rebalancer supports no sort plugin`,
			},
		},
		{
			name: "v1alpha1: unknown strategy, parameter of another strategy",
			yaml: `apiVersion: descheduler/v1alpha1
kind: DeschedulerPolicy
maxNoOfPodsToEvictPerNode: -1
strategies:
  RemoveDuplicate:
    enabled: true
  PodLifeTime:
    enabled: true
    params:
      podLifeTime: {maxPodLifeTimeSeconds: 86400}
      thresholdPriority: 1000
      includeSoftConstraints: true
  RemoveDuplicates:
    enabled: true
`,
			want: []string{
				"policy.yaml: maxNoOfPodsToEvictPerNode: -1 is negative",
				"policy.yaml: strategies[PodLifeTime].params.includeSoftConstraints: is not a parameter of PodLifeTime",
				`policy.yaml: strategies[RemoveDuplicate]: "RemoveDuplicate" is not supported; supported values: ` + `"RemovePodsViolatingNodeTaints", ` +
					`"RemovePodsViolatingNodeAffinity", "RemovePodsViolatingInterPodAntiAffinity", "RemovePodsHavingTooManyRestarts", "PodLifeTime", ` +
					`"RemoveFailedPods", "RemoveDuplicates", "RemovePodsViolatingTopologySpreadConstraint", "LowNodeUtilization", "HighNodeUtilization"`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := policy.Load([]byte(tt.yaml), "policy.yaml")
			if err == nil {
				t.Fatal("Load() = nil error")
			}
			if got, want := err.Error(), strings.Join(tt.want, "\n"); got != want {
				t.Errorf("Load() error:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// The DefaultEvictor's protections become evictable settings that say what
// the descheduler means.
func TestDeschedulerEvictorBecomesEvictable(t *testing.T) {
	tests := []struct {
		name string
		args string
		want string
	}{
		{"defaults", "{}", `{"jobPods":true,"doNotDisruptPods":true}`},
		{"legacy flags", "{evictLocalStoragePods: true, evictSystemCriticalPods: true, ignorePvcPods: true, minPodAge: 1h}",
			`{"systemCritical":true,"localStorage":true,"pvc":false,"jobPods":true,"doNotDisruptPods":true,"minPodAge":"1h0m0s"}`},
		{"podProtections", "{podProtections: {defaultDisabled: [PodsWithLocalStorage], extraEnabled: [PodsWithPVC]}}",
			`{"localStorage":true,"pvc":false,"jobPods":true,"doNotDisruptPods":true}`},
		{"a threshold above what the descheduler always protects", "{priorityThreshold: {value: 2000001000}}",
			`{"priorityThreshold":{"value":2000000000},"jobPods":true,"doNotDisruptPods":true}`},
		{"a threshold by class", "{priorityThreshold: {name: high}, labelSelector: {matchLabels: {movable: \"yes\"}}}",
			`{"priorityThreshold":{"name":"high"},"jobPods":true,"doNotDisruptPods":true,"labelSelector":{"matchLabels":{"movable":"yes"}}}`},
		{"small workloads, pods without a budget and namespaces by label", "{minReplicas: 3, ignorePodsWithoutPDB: true, namespaceLabelSelector: {matchLabels: {rebalance: \"on\"}}}",
			`{"jobPods":true,"doNotDisruptPods":true,"minReplicas":3,"requirePDB":true,"namespaceSelector":{"matchLabels":{"rebalance":"on"}}}`},
		{"minReplicas 1 protects nothing, as in the descheduler", "{minReplicas: 1}", `{"jobPods":true,"doNotDisruptPods":true}`},
		{"pods without a budget, by podProtections", "{podProtections: {extraEnabled: [PodsWithoutPDB]}}",
			`{"jobPods":true,"doNotDisruptPods":true,"requirePDB":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n  pluginConfig:\n  - name: DefaultEvictor\n    args: " + tt.args +
				"\n  plugins: {balance: {enabled: [RemoveDuplicates]}}\n"
			c, err := policy.Convert([]byte(doc), "policy.yaml")
			if err != nil {
				t.Fatal(err)
			}
			got := string(c.Document)
			i := strings.Index(got, `"evictable":`)
			j := strings.Index(got, `,"strategies"`)
			if i < 0 || j < 0 || got[i+len(`"evictable":`):j] != tt.want {
				t.Errorf("Convert() = %s\nwant evictable %s", got, tt.want)
			}
		})
	}
}

// Profiles whose DefaultEvictors differ keep them: what the profiles that
// run strategies share is the policy's evictable, and each strategy carries
// what its profile sets otherwise. v1alpha1's strategies, each a profile of
// its own in the descheduler, keep their thresholdPriority the same way.
func TestDeschedulerProfilesKeepTheirEvictors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want string
	}{
		{
			name: "v1alpha2: one profile allows local storage, another sets a minimum age",
			yaml: `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: restarts
  pluginConfig:
  - name: DefaultEvictor
    args: {evictLocalStoragePods: true, ignorePvcPods: true}
  - name: RemovePodsHavingTooManyRestarts
    args: {podRestartThreshold: 10}
  plugins: {deschedule: {enabled: [RemovePodsHavingTooManyRestarts]}}
- name: balance
  pluginConfig:
  - name: DefaultEvictor
    args: {ignorePvcPods: true, minPodAge: 1h}
  - name: LowNodeUtilization
    args: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}
  plugins: {balance: {enabled: [LowNodeUtilization, RemoveDuplicates]}}
- name: configured, not run
  pluginConfig:
  - name: DefaultEvictor
    args: {evictSystemCriticalPods: true}
  - name: PodLifeTime
    args: {maxPodLifeTimeSeconds: 60}
`,
			want: `"evictable":{"pvc":false,"jobPods":true,"doNotDisruptPods":true},` +
				`"strategies":{"RemovePodsHavingTooManyRestarts":{"evictable":{"localStorage":true},"podRestartThreshold":10},` +
				`"PodLifeTime":{"enabled":false,"maxPodLifeTimeSeconds":60},` +
				`"RemoveDuplicates":{"evictable":{"minPodAge":"1h0m0s"}},` +
				`"LowNodeUtilization":{"evictable":{"minPodAge":"1h0m0s"},"thresholds":{"cpu":20},"targetThresholds":{"cpu":50}}}`,
		},
		{
			name: "v1alpha1: a threshold per strategy",
			yaml: `apiVersion: descheduler/v1alpha1
kind: DeschedulerPolicy
strategies:
  PodLifeTime:
    enabled: true
    params:
      podLifeTime: {maxPodLifeTimeSeconds: 86400}
      thresholdPriority: 1000
  RemoveDuplicates:
    enabled: true
`,
			want: `"evictable":{"jobPods":true,"doNotDisruptPods":true},` +
				`"strategies":{"PodLifeTime":{"evictable":{"priorityThreshold":{"value":1000}},"maxPodLifeTimeSeconds":86400},"RemoveDuplicates":{}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := policy.Convert([]byte(tt.yaml), "policy.yaml")
			if err != nil {
				t.Fatal(err)
			}
			got := string(c.Document)
			if i := strings.Index(got, `"evictable":{"`); i < 0 || !strings.HasSuffix(got, tt.want+"}") || !strings.HasPrefix(got[i:], tt.want) {
				t.Errorf("Convert() = %s\nwant it to end with %s", got, tt.want)
			}
		})
	}
}

// The descheduler's limits hold for its whole run: a descheduler policy
// gets rebalancer's per-run bounds, in either version, and no per-step one.
func TestDeschedulerLimitsHoldPerRun(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want policy.Limits
	}{
		{
			name: "v1alpha2",
			yaml: "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n" +
				"maxNoOfPodsToEvictPerNode: 3\nmaxNoOfPodsToEvictPerNamespace: 10\nmaxNoOfPodsToEvictTotal: 20\n" +
				"profiles:\n- name: default\n  plugins: {balance: {enabled: [RemoveDuplicates]}}\n",
			want: policy.Limits{Total: new(int32(20)), PerRun: &policy.LimitBounds{Node: new(int32(3)), Namespace: new(int32(10))}},
		},
		{
			name: "v1alpha1",
			yaml: "apiVersion: descheduler/v1alpha1\nkind: DeschedulerPolicy\nmaxNoOfPodsToEvictPerNode: 3\n" +
				"strategies:\n  RemoveDuplicates: {enabled: true}\n",
			want: policy.Limits{PerRun: &policy.LimitBounds{Node: new(int32(3))}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := policy.Load([]byte(tt.yaml), "policy.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Limits, tt.want) {
				t.Errorf("limits = %s, want %s", jsonOf(t, p.Limits), jsonOf(t, tt.want))
			}
			if d := p.Deprecations(); len(d) > 0 {
				t.Errorf("deprecations %q, want none", d)
			}
		})
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The former flat limits load with their meaning of today, a step's, and
// each is named with its new name.
func TestFormerLimitNames(t *testing.T) {
	p, err := policy.Load([]byte("apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\n"+
		"limits: {perNode: 3, perNamespace: 10, perWorkload: 2}\noverrides:\n- namespaces: [a]\n  limits: {perNamespace: 1}\n"), "policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"limits.perNode is deprecated: write limits.perStep.node, the same bound on each step (limits.perRun.node bounds the whole run)",
		"limits.perNamespace is deprecated: write limits.perStep.namespace, the same bound on each step (limits.perRun.namespace bounds the whole run)",
		"limits.perWorkload is deprecated: write limits.perStep.workload, the same bound on each step (limits.perRun.workload bounds the whole run)",
		"overrides[0].limits.perNamespace is deprecated: write overrides[0].limits.perStep.namespace, the same bound on each step (overrides[0].limits.perRun.namespace bounds the whole run)",
	}
	if got := p.Deprecations(); !reflect.DeepEqual(got, want) {
		t.Errorf("Deprecations() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	step := p.Limits.Step()
	if *step.Node.Max != 3 || step.Node.Field != "limits.perNode" || step.Workload.Max.IntValue() != 2 || step.Workload.Field != "limits.perWorkload" {
		t.Errorf("Step() = %+v, want node 3 and workload 2 by their former names", step)
	}
	if s := p.For("a", nil); *s.PerNamespaceLimit != 1 || s.PerNamespaceField != "limits.perNamespace" || s.PerRunNamespaceLimit != nil {
		t.Errorf("namespace a: per step %d (%s), per run %v; want 1 by its former name, and no per-run bound", *s.PerNamespaceLimit, s.PerNamespaceField, s.PerRunNamespaceLimit)
	}
	if p.HasPerRunLimits() {
		t.Error("HasPerRunLimits() = true for a policy of per-step limits")
	}
}
