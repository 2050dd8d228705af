package strategies_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/planner"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

// everyStrategy runs every strategy but HighNodeUtilization, which
// contradicts LowNodeUtilization, with no limits: whatever the first run
// leaves undone, no later run may do either.
const everyStrategy = `
namespaces: {exclude: [kube-system]}
strategies:
  RemovePodsViolatingNodeTaints: {includedTaints: [node.kubernetes.io/unschedulable]}
  RemovePodsViolatingNodeAffinity:
    nodeAffinityType: [requiredDuringSchedulingIgnoredDuringExecution, preferredDuringSchedulingIgnoredDuringExecution]
  RemovePodsViolatingInterPodAntiAffinity: {}
  RemovePodsHavingTooManyRestarts: {podRestartThreshold: 10}
  PodLifeTime: {maxPodLifeTimeSeconds: 2592000}
  RemoveFailedPods: {}
  RemoveDuplicates: {}
  RemovePodsViolatingTopologySpreadConstraint: {constraints: [DoNotSchedule, ScheduleAnyway]}
`

const lowUtilization = `  LowNodeUtilization:
    thresholds: {cpu: 20, memory: 20, pods: 20}
    targetThresholds: {cpu: 80, memory: 80, pods: 80}
`

const highUtilization = `  HighNodeUtilization:
    thresholds: {cpu: 60, memory: 60}
`

// exampleCluster is examples/cluster.yaml with pods that each violation
// strategy acts on. node-b3 is cordoned in the example, which the taint
// strategy acts on when the policy includes the cordon taint.
func exampleCluster(t *testing.T) cluster.Objects {
	t.Helper()
	objs, _, err := cluster.ReadFile("../examples/cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pod := func(name, node string) *ct.PodBuilder {
		return ct.Pod("shop", name).On(node).Requests("100m", "128Mi").Deployment(name).Scheduled()
	}
	extra := ct.Objects(
		// Required node affinity whose node stopped matching.
		ct.DeploymentReplicaSet("shop", "zonal"),
		pod("zonal", "node-a1").RequireNodeLabelIn(corev1.LabelTopologyZone, "zone-b"),
		// Preferred node affinity a zone-b node matches better.
		ct.DeploymentReplicaSet("shop", "edge"),
		pod("edge", "node-a2").PreferNodeLabelIn(40, corev1.LabelTopologyZone, "zone-b"),
		// An anti-affinity broken by a label change.
		ct.DeploymentReplicaSet("shop", "cache"), ct.DeploymentReplicaSet("shop", "cache-peer"),
		pod("cache", "node-a2").AntiAffinity(corev1.LabelHostname, map[string]string{"app": "cache-peer"}),
		pod("cache-peer", "node-a2").Priority(-1),
		// A crash loop.
		ct.DeploymentReplicaSet("shop", "flaky"),
		pod("flaky", "node-a1").Restarts(25).Waiting("CrashLoopBackOff"),
		// A pod past its lifetime (30 days).
		ct.DeploymentReplicaSet("shop", "ancient"),
		pod("ancient", "node-b1").CreatedAgo(40*24*time.Hour),
		// A failed pod, two hours old.
		ct.DeploymentReplicaSet("shop", "oom"),
		pod("oom", "node-b2").CreatedAgo(2*time.Hour).Failed("", "OOMKilled", 137),
	)
	// A workload spread over zones, scheduled while zone-b was down.
	extra.ReplicaSets = append(extra.ReplicaSets, ct.DeploymentReplicaSet("shop", "search"))
	for i, node := range []string{"node-a1", "node-a1", "node-a2", "node-a2", "node-a3", "node-a3"} {
		extra.Pods = append(extra.Pods, ct.Pod("shop", fmt.Sprintf("search-%d", i)).On(node).Requests("100m", "128Mi").Deployment("search").Scheduled().
			Spread(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule, map[string]string{"app": "search"}).
			Spread(corev1.LabelHostname, 1, corev1.ScheduleAnyway, map[string]string{"app": "search"}).Obj())
	}
	objs.Pods = append(objs.Pods, extra.Pods...)
	objs.ReplicaSets = append(objs.ReplicaSets, extra.ReplicaSets...)
	// The example's budget lets one checkout pod go per cycle; the
	// duplicates strategy needs two. Budgets (like limits) defer work to
	// later runs, which is not what this is about: let both go.
	for i := range objs.PDBs {
		objs.PDBs[i].Status.DisruptionsAllowed = 2
	}
	return objs
}

// Every strategy of one policy on the example cluster: the first run
// fixes every violation and balances; applied as the cluster would apply
// it, the second run has nothing to do. A strategy that undid another's
// move would show up here as a second-run move, and so would work the
// first run left for later.
func TestStrategiesDoNotUndoEachOther(t *testing.T) {
	type acted struct{ strategy, pod string }
	violations := []acted{
		{"RemovePodsViolatingNodeTaints", "batch/"},
		{"RemovePodsViolatingNodeAffinity", "shop/zonal"},
		{"RemovePodsViolatingNodeAffinity", "shop/edge"},
		{"RemovePodsViolatingInterPodAntiAffinity", "shop/cache-peer"},
		{"RemovePodsHavingTooManyRestarts", "shop/flaky"},
		{"PodLifeTime", "shop/ancient"},
		{"RemoveFailedPods", "shop/oom"},
		{"RemovePodsViolatingTopologySpreadConstraint", "shop/search-"},
	}
	for _, tt := range []struct {
		name, policy string
		acted        []acted
	}{
		{"with LowNodeUtilization", everyStrategy + lowUtilization, append(violations, acted{"RemoveDuplicates", "shop/web-"})},
		{"with HighNodeUtilization", everyStrategy + highUtilization, append(violations, acted{"RemoveDuplicates", "shop/web-"})},
		// RemoveDuplicates keeps replicas spread, which leaves
		// HighNodeUtilization nothing to empty in this cluster; without
		// it, node-b2 is emptied.
		{"with HighNodeUtilization, without RemoveDuplicates", strings.Replace(everyStrategy, "  RemoveDuplicates: {}\n", "", 1) + highUtilization,
			append(violations, acted{"HighNodeUtilization", "payments/ledger-db-2"})},
	} {
		t.Run(tt.name, func(t *testing.T) {
			objs := exampleCluster(t)
			first := strategytest.Plan(t, strategytest.Build(t, objs), tt.policy)
			byStrategy := make(map[string][]string)
			for _, m := range first.Moves {
				byStrategy[m.Strategy] = append(byStrategy[m.Strategy], fmt.Sprintf("%s %s→%s", m.Pod, m.From, m.To))
			}
			for _, want := range tt.acted {
				if !strings.Contains(strings.Join(byStrategy[want.strategy], "\n"), want.pod) {
					t.Errorf("%s moved %v, want %s among them", want.strategy, byStrategy[want.strategy], want.pod)
				}
			}
			second := strategytest.Plan(t, strategytest.Build(t, ct.AfterEvictions(objs, evictions(first), ct.Now)), tt.policy)
			strategytest.Equal(t, "second run", strategytest.Moves(second), nil)
		})
	}
}

func evictions(p *planner.Plan) []cluster.Eviction {
	var out []cluster.Eviction
	for _, m := range p.Moves {
		out = append(out, cluster.Eviction{Pod: m.Pod, From: m.From, To: m.To, Strategy: m.Strategy})
	}
	return out
}

// The same input gives the same plan, move for move and reason for reason.
func TestPlansAreDeterministic(t *testing.T) {
	for _, policy := range []string{everyStrategy + lowUtilization, everyStrategy + highUtilization} {
		var first []byte
		for range 3 {
			p := strategytest.Plan(t, strategytest.Build(t, exampleCluster(t)), policy)
			b, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = b
			} else if string(b) != string(first) {
				t.Fatalf("two plans of the same input differ:\n%s\n%s", first, b)
			}
		}
	}
}
