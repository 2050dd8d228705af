package planner

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/policy"
)

// A descheduler policy, in either version, plans the same moves as the
// RebalancePolicy that says the same thing, strategy by strategy. The
// native form states what the descheduler means where rebalancer's
// defaults differ: no cooldown, and pods of Jobs and pods autoscalers
// protect are evictable.
func TestDeschedulerPoliciesPlanTheSameMoves(t *testing.T) {
	const (
		v1alpha2 = "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n"
		v1alpha1 = "apiVersion: descheduler/v1alpha1\nkind: DeschedulerPolicy\n"
		native   = "apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\ncooldown: 0s\nevictable: {jobPods: true, doNotDisruptPods: true}\n"
	)
	web := func(name, node string) *ct.PodBuilder {
		return ct.Pod("shop", name).On(node).Requests("100m", "64Mi").Deployment("web")
	}
	tests := []struct {
		name     string
		objs     []any
		native   string
		v1alpha2 string
		v1alpha1 string
	}{
		{
			name: "RemovePodsViolatingNodeTaints",
			objs: []any{ct.Node("n1").Taint("dedicated", "gpu", corev1.TaintEffectNoSchedule), ct.Node("n2"),
				web("web-1", "n1"), web("train-1", "n1").Tolerate("dedicated", "gpu", corev1.TaintEffectNoSchedule)},
			native: "strategies:\n  RemovePodsViolatingNodeTaints: {excludedTaints: [reserved]}\n",
			v1alpha2: `profiles:
  - name: ProfileName
    pluginConfig:
    - name: "RemovePodsViolatingNodeTaints"
      args:
        excludedTaints:
        - reserved # exclude all taints with key "reserved"
    plugins:
      deschedule:
        enabled:
          - "RemovePodsViolatingNodeTaints"
`,
			v1alpha1: `strategies:
  "RemovePodsViolatingNodeTaints":
    enabled: true
    params:
      excludedTaints:
      - reserved
`,
		},
		{
			name: "RemovePodsViolatingNodeAffinity",
			objs: []any{ct.Node("n1"), ct.Node("n2").Label("disktype", "ssd"),
				web("db-1", "n1").RequireNodeLabelIn("disktype", "ssd"), web("web-1", "n1")},
			native: "strategies:\n  RemovePodsViolatingNodeAffinity: {nodeAffinityType: [requiredDuringSchedulingIgnoredDuringExecution]}\n",
			v1alpha2: `profiles:
  - name: ProfileName
    pluginConfig:
    - name: "RemovePodsViolatingNodeAffinity"
      args:
        nodeAffinityType:
        - "requiredDuringSchedulingIgnoredDuringExecution"
    plugins:
      deschedule:
        enabled:
          - "RemovePodsViolatingNodeAffinity"
`,
			v1alpha1: `strategies:
  "RemovePodsViolatingNodeAffinity":
    enabled: true
    params:
      nodeAffinityType:
      - "requiredDuringSchedulingIgnoredDuringExecution"
`,
		},
		{
			name: "RemovePodsViolatingInterPodAntiAffinity",
			objs: []any{ct.Node("n1"), ct.Node("n2"),
				web("cache-1", "n1").AntiAffinity(corev1.LabelHostname, map[string]string{"app": "b"}), web("b-1", "n1").Label("app", "b")},
			native: "strategies:\n  RemovePodsViolatingInterPodAntiAffinity: {}\n",
			v1alpha2: `profiles:
  - name: ProfileName
    pluginConfig:
    - name: "RemovePodsViolatingInterPodAntiAffinity"
    plugins:
      deschedule:
        enabled:
          - "RemovePodsViolatingInterPodAntiAffinity"
`,
			v1alpha1: "strategies:\n  \"RemovePodsViolatingInterPodAntiAffinity\":\n    enabled: true\n",
		},
		{
			name:   "RemovePodsHavingTooManyRestarts",
			objs:   []any{ct.Node("n1"), ct.Node("n2"), web("crashy-1", "n1").Restarts(120), web("web-1", "n1").Restarts(3)},
			native: "strategies:\n  RemovePodsHavingTooManyRestarts: {podRestartThreshold: 100, includingInitContainers: true}\n",
			v1alpha2: `profiles:
  - name: ProfileName
    pluginConfig:
    - name: "RemovePodsHavingTooManyRestarts"
      args:
        podRestartThreshold: 100
        includingInitContainers: true
    plugins:
      deschedule:
        enabled:
          - "RemovePodsHavingTooManyRestarts"
`,
			v1alpha1: `strategies:
  "RemovePodsHavingTooManyRestarts":
    enabled: true
    params:
      podsHavingTooManyRestarts:
        podRestartThreshold: 100
        includingInitContainers: true
`,
		},
		{
			name:   "PodLifeTime",
			objs:   []any{ct.Node("n1"), ct.Node("n2"), web("old-1", "n1").CreatedAgo(72 * time.Hour), web("web-1", "n1").CreatedAgo(time.Hour)},
			native: "strategies:\n  PodLifeTime: {maxPodLifeTimeSeconds: 86400, namespaces: {include: [shop]}}\n",
			v1alpha2: `profiles:
  - name: ProfileName
    pluginConfig:
    - name: "PodLifeTime"
      args:
        maxPodLifeTimeSeconds: 86400
        namespaces:
          include:
          - "shop"
    plugins:
      deschedule:
        enabled:
          - "PodLifeTime"
`,
			v1alpha1: `strategies:
  "PodLifeTime":
    enabled: true
    params:
      podLifeTime:
        maxPodLifeTimeSeconds: 86400
      namespaces:
        include:
        - "shop"
`,
		},
		{
			name: "RemoveFailedPods",
			objs: []any{ct.Node("n1"), ct.Node("n2"), web("oom-1", "n1").Failed("NodeAffinity", "Error", 1).CreatedAgo(2 * time.Hour),
				web("web-1", "n1")},
			native: "strategies:\n  RemoveFailedPods: {reasons: [NodeAffinity], exitCodes: [1], includingInitContainers: true, excludeOwnerKinds: [Job], minPodLifetimeSeconds: 3600}\n",
			v1alpha2: `profiles:
  - name: ProfileName
    pluginConfig:
    - name: "RemoveFailedPods"
      args:
        reasons:
        - "NodeAffinity"
        exitCodes:
        - 1
        includingInitContainers: true
        excludeOwnerKinds:
        - "Job"
        minPodLifetimeSeconds: 3600
    plugins:
      deschedule:
        enabled:
          - "RemoveFailedPods"
`,
			// v1alpha1 had no exitCodes; the rest is the same.
			v1alpha1: `strategies:
  "RemoveFailedPods":
    enabled: true
    params:
      failedPods:
        reasons:
        - "NodeAffinity"
        includingInitContainers: true
        excludeOwnerKinds:
        - "Job"
        minPodLifetimeSeconds: 3600
`,
		},
		{
			name:   "RemoveDuplicates",
			objs:   []any{ct.Node("n1"), ct.Node("n2"), web("web-1", "n1"), web("web-2", "n1"), web("web-3", "n1")},
			native: "strategies:\n  RemoveDuplicates: {}\n",
			v1alpha2: `profiles:
  - name: ProfileName
    pluginConfig:
    - name: "RemoveDuplicates"
    plugins:
      balance:
        enabled:
          - "RemoveDuplicates"
`,
			v1alpha1: "strategies:\n  \"RemoveDuplicates\":\n    enabled: true\n",
		},
		{
			name: "RemovePodsViolatingTopologySpreadConstraint",
			objs: []any{ct.Node("n1").Zone("zone-a"), ct.Node("n2").Zone("zone-b"),
				web("web-1", "n1").Label("app", "web").Spread(corev1.LabelTopologyZone, 1, corev1.ScheduleAnyway, map[string]string{"app": "web"}),
				web("web-2", "n1").Label("app", "web").Spread(corev1.LabelTopologyZone, 1, corev1.ScheduleAnyway, map[string]string{"app": "web"}),
				web("web-3", "n1").Label("app", "web").Spread(corev1.LabelTopologyZone, 1, corev1.ScheduleAnyway, map[string]string{"app": "web"})},
			native: "strategies:\n  RemovePodsViolatingTopologySpreadConstraint: {constraints: [DoNotSchedule, ScheduleAnyway]}\n",
			v1alpha2: `profiles:
  - name: ProfileName
    pluginConfig:
    - name: "RemovePodsViolatingTopologySpreadConstraint"
      args:
        constraints:
          - DoNotSchedule
          - ScheduleAnyway
    plugins:
      balance:
        enabled:
          - "RemovePodsViolatingTopologySpreadConstraint"
`,
			v1alpha1: `strategies:
  "RemovePodsViolatingTopologySpreadConstraint":
    enabled: true
    params:
      includeSoftConstraints: true
`,
		},
		{
			name: "LowNodeUtilization",
			objs: []any{ct.Node("n1").CPU("4"), ct.Node("n2").CPU("4"),
				ct.Pod("shop", "web-1").On("n1").Requests("1", "64Mi").Deployment("web"),
				ct.Pod("shop", "web-2").On("n1").Requests("1", "64Mi").Deployment("web"),
				ct.Pod("shop", "web-3").On("n1").Requests("1", "64Mi").Deployment("web")},
			native: "strategies:\n  LowNodeUtilization: {thresholds: {cpu: 20, memory: 20, pods: 20}, targetThresholds: {cpu: 50, memory: 50, pods: 50}}\n",
			v1alpha2: `profiles:
  - name: ProfileName
    pluginConfig:
    - name: "LowNodeUtilization"
      args:
        thresholds:
          "cpu" : 20
          "memory": 20
          "pods": 20
        targetThresholds:
          "cpu" : 50
          "memory": 50
          "pods": 50
    plugins:
      balance:
        enabled:
          - "LowNodeUtilization"
`,
			v1alpha1: `strategies:
  "LowNodeUtilization":
    enabled: true
    params:
      nodeResourceUtilizationThresholds:
        thresholds:
          "cpu" : 20
          "memory": 20
          "pods": 20
        targetThresholds:
          "cpu" : 50
          "memory": 50
          "pods": 50
`,
		},
		{
			name: "HighNodeUtilization",
			objs: []any{ct.Node("n1").CPU("4"), ct.Node("n2").CPU("4"),
				ct.Pod("shop", "web-1").On("n1").Requests("400m", "64Mi").Deployment("web"),
				ct.Pod("shop", "api-1").On("n2").Requests("2", "64Mi").Deployment("api")},
			native: "strategies:\n  HighNodeUtilization: {thresholds: {cpu: 20, memory: 20, pods: 20}}\n",
			v1alpha2: `profiles:
  - name: ProfileName
    pluginConfig:
    - name: "HighNodeUtilization"
      args:
        thresholds:
          "cpu" : 20
          "memory": 20
          "pods": 20
    plugins:
      balance:
        enabled:
          - "HighNodeUtilization"
`,
			v1alpha1: `strategies:
  "HighNodeUtilization":
    enabled: true
    params:
      nodeResourceUtilizationThresholds:
        thresholds:
          "cpu" : 20
          "memory": 20
          "pods": 20
`,
		},
		{
			// v1alpha1 has neither argument.
			name: "LowNodeUtilization with evictableNamespaces and evictionLimits",
			objs: []any{ct.Node("n1").CPU("4"), ct.Node("n2").CPU("4"),
				ct.Pod("ops", "agent-1").On("n1").Requests("1", "64Mi").Deployment("agent"),
				ct.Pod("shop", "web-1").On("n1").Requests("1", "64Mi").Deployment("web"),
				ct.Pod("shop", "web-2").On("n1").Requests("1", "64Mi").Deployment("web"),
				ct.Pod("shop", "web-3").On("n1").Requests("1", "64Mi").Deployment("web")},
			native: "strategies:\n  LowNodeUtilization: {thresholds: {cpu: 20, memory: 20, pods: 20}, targetThresholds: {cpu: 50, memory: 50, pods: 50}, " +
				"evictableNamespaces: {exclude: [ops]}, evictionLimits: {node: 1}}\n",
			v1alpha2: `profiles:
  - name: ProfileName
    pluginConfig:
    - name: "LowNodeUtilization"
      args:
        thresholds:
          "cpu" : 20
          "memory": 20
          "pods": 20
        targetThresholds:
          "cpu" : 50
          "memory": 50
          "pods": 50
        evictableNamespaces:
          exclude:
          - "ops"
        evictionLimits:
          node: 1
    plugins:
      balance:
        enabled:
          - "LowNodeUtilization"
`,
		},
		{
			name: "PodLifeTime of some owners only",
			objs: []any{ct.Node("n1"), ct.Node("n2"), web("old-1", "n1").CreatedAgo(72 * time.Hour),
				ct.Pod("shop", "db-0").On("n1").Requests("100m", "64Mi").OwnedBy("StatefulSet", "db").CreatedAgo(72 * time.Hour)},
			native: "strategies:\n  PodLifeTime: {maxPodLifeTimeSeconds: 86400, ownerKinds: {exclude: [StatefulSet]}}\n",
			v1alpha2: `profiles:
  - name: ProfileName
    pluginConfig:
    - name: "PodLifeTime"
      args:
        maxPodLifeTimeSeconds: 86400
        ownerKinds:
          exclude:
          - "StatefulSet"
    plugins:
      deschedule:
        enabled:
          - "PodLifeTime"
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := append([]any{ct.DeploymentReplicaSet("shop", "web"), ct.DeploymentReplicaSet("shop", "api"),
				ct.DeploymentReplicaSet("ops", "agent"), ct.StatefulSet("shop", "db", 3)}, tt.objs...)
			snap := ct.Snapshot(t, objs...)
			plan := func(doc string) string {
				t.Helper()
				pol, err := policy.Load([]byte(doc), "policy.yaml")
				if err != nil {
					t.Fatal(err)
				}
				return moves((&Planner{Policy: pol, Placer: newEngine(t)}).Plan(snap))
			}
			want := plan(native + tt.native)
			if want == "" {
				t.Fatalf("the native policy plans no move: the case shows nothing")
			}
			if got := plan(v1alpha2 + tt.v1alpha2); got != want {
				t.Errorf("descheduler/v1alpha2 plans\n%s\nthe RebalancePolicy\n%s", got, want)
			}
			if tt.v1alpha1 == "" {
				return
			}
			if got := plan(v1alpha1 + tt.v1alpha1); got != want {
				t.Errorf("descheduler/v1alpha1 plans\n%s\nthe RebalancePolicy\n%s", got, want)
			}
		})
	}
}

// moves lists a plan's moves: pod, from, to, strategy and step.
func moves(p *Plan) string {
	var out []string
	for _, m := range p.Moves {
		out = append(out, fmt.Sprintf("%s %s->%s %s@%d", m.Pod, m.From, m.To, m.Strategy, m.Step))
	}
	return strings.Join(out, "\n")
}

// Profiles whose DefaultEvictors differ plan what the descheduler plans:
// each strategy evicts by its own profile's settings, as the RebalancePolicy
// with a strategy's own evictable does.
func TestDeschedulerProfilesWithTheirOwnEvictors(t *testing.T) {
	const (
		v1alpha2 = "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n"
		v1alpha1 = "apiVersion: descheduler/v1alpha1\nkind: DeschedulerPolicy\n"
		native   = "apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\ncooldown: 0s\nevictable: {jobPods: true, doNotDisruptPods: true}\n"
	)
	emptyDir := corev1.Volume{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	web := func(name string) *ct.PodBuilder {
		return ct.Pod("shop", name).On("n1").Requests("100m", "64Mi").Deployment("web").CreatedAgo(48 * time.Hour)
	}
	tests := []struct {
		name     string
		objs     []any
		native   string
		v1alpha2 string
		v1alpha1 string // "" where v1alpha1 cannot say it
		// moved lists each pod moved, by which strategy
		moved string
	}{
		{
			// The crash-looping pod's emptyDir may go; the cache of a pod
			// that is merely old may not.
			name: "local storage allowed in one profile",
			objs: []any{web("crashy").Volume(emptyDir).Restarts(20), web("cache").Volume(emptyDir), web("old")},
			native: `strategies:
  RemovePodsHavingTooManyRestarts: {podRestartThreshold: 10, evictable: {localStorage: true}}
  PodLifeTime: {maxPodLifeTimeSeconds: 86400}
`,
			v1alpha2: `profiles:
  - name: restarts
    pluginConfig:
    - name: DefaultEvictor
      args:
        evictLocalStoragePods: true
    - name: RemovePodsHavingTooManyRestarts
      args:
        podRestartThreshold: 10
    plugins:
      deschedule:
        enabled: [RemovePodsHavingTooManyRestarts]
  - name: lifetime
    pluginConfig:
    - name: PodLifeTime
      args:
        maxPodLifeTimeSeconds: 86400
    plugins:
      deschedule:
        enabled: [PodLifeTime]
`,
			moved: "shop/crashy RemovePodsHavingTooManyRestarts, shop/old PodLifeTime",
		},
		{
			name: "a priority threshold in one profile",
			objs: []any{web("crashy").Priority(5000).Restarts(20), web("important").Priority(5000), web("old")},
			native: `strategies:
  RemovePodsHavingTooManyRestarts: {podRestartThreshold: 10}
  PodLifeTime: {maxPodLifeTimeSeconds: 86400, evictable: {priorityThreshold: {value: 1000}}}
`,
			v1alpha2: `profiles:
  - name: restarts
    pluginConfig:
    - name: RemovePodsHavingTooManyRestarts
      args:
        podRestartThreshold: 10
    plugins:
      deschedule:
        enabled: [RemovePodsHavingTooManyRestarts]
  - name: lifetime
    pluginConfig:
    - name: DefaultEvictor
      args:
        priorityThreshold: {value: 1000}
    - name: PodLifeTime
      args:
        maxPodLifeTimeSeconds: 86400
    plugins:
      deschedule:
        enabled: [PodLifeTime]
`,
			v1alpha1: `strategies:
  RemovePodsHavingTooManyRestarts:
    enabled: true
    params:
      podsHavingTooManyRestarts: {podRestartThreshold: 10}
  PodLifeTime:
    enabled: true
    params:
      podLifeTime: {maxPodLifeTimeSeconds: 86400}
      thresholdPriority: 1000
`,
			moved: "shop/crashy RemovePodsHavingTooManyRestarts, shop/old PodLifeTime",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := append([]any{ct.Node("n1"), ct.Node("n2"), ct.DeploymentReplicaSet("shop", "web")}, tt.objs...)
			snap := ct.Snapshot(t, objs...)
			plan := func(doc string) *Plan {
				t.Helper()
				pol, err := policy.Load([]byte(doc), "policy.yaml")
				if err != nil {
					t.Fatal(err)
				}
				return (&Planner{Policy: pol, Placer: newEngine(t)}).Plan(snap)
			}
			nativePlan := plan(native + tt.native)
			var moved []string
			for _, m := range nativePlan.Moves {
				moved = append(moved, m.Pod+" "+m.Strategy)
			}
			if got := strings.Join(moved, ", "); got != tt.moved {
				t.Fatalf("the RebalancePolicy moves %s, want %s", got, tt.moved)
			}
			want := moves(nativePlan)
			if got := moves(plan(v1alpha2 + tt.v1alpha2)); got != want {
				t.Errorf("descheduler/v1alpha2 plans\n%s\nthe RebalancePolicy\n%s", got, want)
			}
			if tt.v1alpha1 == "" {
				return
			}
			if got := moves(plan(v1alpha1 + tt.v1alpha1)); got != want {
				t.Errorf("descheduler/v1alpha1 plans\n%s\nthe RebalancePolicy\n%s", got, want)
			}
		})
	}
}

// The descheduler's limits hold for its whole run, and a descheduler policy
// evicts as many pods as the descheduler would: no later step (here the
// workloads' implicit budgets make several) takes more from a node or
// namespace that reached its limit. The RebalancePolicy that
// says the same names them limits.perRun.
func TestDeschedulerLimitsHoldForTheRun(t *testing.T) {
	const (
		v1alpha2 = "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n"
		v1alpha1 = "apiVersion: descheduler/v1alpha1\nkind: DeschedulerPolicy\n"
		native   = "apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\ncooldown: 0s\nevictable: {jobPods: true, doNotDisruptPods: true}\n" +
			"strategies:\n  RemovePodsHavingTooManyRestarts: {podRestartThreshold: 10}\n"
		profiles = "profiles:\n- name: default\n  pluginConfig:\n  - name: RemovePodsHavingTooManyRestarts\n    args: {podRestartThreshold: 10}\n" +
			"  plugins: {deschedule: {enabled: [RemovePodsHavingTooManyRestarts]}}\n"
		strategies = "strategies:\n  RemovePodsHavingTooManyRestarts:\n    enabled: true\n    params:\n      podsHavingTooManyRestarts: {podRestartThreshold: 10}\n"
	)
	// n1 runs six crash-looping pods, three of shop and three of blog; n2
	// and n3 have room for all.
	objs := []any{ct.Node("n1"), ct.Node("n2"), ct.Node("n3"), ct.DeploymentReplicaSet("shop", "web"), ct.DeploymentReplicaSet("blog", "web")}
	for i := range 3 {
		objs = append(objs,
			ct.Pod("shop", fmt.Sprintf("web-%d", i)).On("n1").Requests("100m", "64Mi").Deployment("web").Restarts(20),
			ct.Pod("blog", fmt.Sprintf("web-%d", i)).On("n1").Requests("100m", "64Mi").Deployment("web").Restarts(20))
	}
	snap := ct.Snapshot(t, objs...)
	tests := []struct {
		name string
		// limits is the descheduler's top-level limits, native their
		// RebalancePolicy form.
		limits string
		native string
		// v1alpha1 has no maxNoOfPodsToEvictTotal.
		noV1alpha1 bool
		evicted    int
	}{
		{name: "no limits", evicted: 6},
		{name: "per node", limits: "maxNoOfPodsToEvictPerNode: 2\n", native: "limits: {perRun: {node: 2}}\n", evicted: 2},
		{name: "per namespace", limits: "maxNoOfPodsToEvictPerNamespace: 1\n", native: "limits: {perRun: {namespace: 1}}\n", evicted: 2},
		{name: "total", limits: "maxNoOfPodsToEvictTotal: 3\n", native: "limits: {total: 3}\n", noV1alpha1: true, evicted: 3},
		{name: "per node above the total", limits: "maxNoOfPodsToEvictPerNode: 4\nmaxNoOfPodsToEvictTotal: 3\n",
			native: "limits: {total: 3, perRun: {node: 4}}\n", noV1alpha1: true, evicted: 3},
		{name: "per namespace below per node", limits: "maxNoOfPodsToEvictPerNode: 5\nmaxNoOfPodsToEvictPerNamespace: 2\n",
			native: "limits: {perRun: {node: 5, namespace: 2}}\n", evicted: 4},
		{name: "zero per node", limits: "maxNoOfPodsToEvictPerNode: 0\n", native: "limits: {perRun: {node: 0}}\n", evicted: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := func(doc string) *Plan {
				t.Helper()
				pol, err := policy.Load([]byte(doc), "policy.yaml")
				if err != nil {
					t.Fatal(err)
				}
				return (&Planner{Policy: pol, Placer: newEngine(t)}).Plan(snap)
			}
			nativePlan := plan(native + tt.native)
			if got := len(nativePlan.Moves); got != tt.evicted {
				t.Errorf("the RebalancePolicy evicts %d, the descheduler %d:\n%s", got, tt.evicted, moves(nativePlan))
			}
			want := moves(nativePlan)
			if got := moves(plan(v1alpha2 + tt.limits + profiles)); got != want {
				t.Errorf("descheduler/v1alpha2 plans\n%s\nthe RebalancePolicy\n%s", got, want)
			}
			if tt.noV1alpha1 {
				return
			}
			if got := moves(plan(v1alpha1 + tt.limits + strategies)); got != want {
				t.Errorf("descheduler/v1alpha1 plans\n%s\nthe RebalancePolicy\n%s", got, want)
			}
		})
	}
}
