package planner

import (
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// settled is a Deployment whose pods are all updated and available, as
// the Deployment controller reports it.
func settled(name string, replicas int32) appsv1.Deployment {
	d := ct.Deployment("shop", name, replicas, appsv1.DeploymentStrategy{})
	d.Generation, d.Status.ObservedGeneration = 2, 2
	d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas = replicas, replicas, replicas, replicas
	return d
}

// neverAllows is a PodDisruptionBudget of maxUnavailable: 0.
func neverAllows(app string) policyv1.PodDisruptionBudget {
	zero := intstr.FromInt32(0)
	pdb := ct.PDB("shop", app, 0)
	pdb.Spec.MinAvailable, pdb.Spec.MaxUnavailable = nil, &zero
	return pdb
}

// A move that a budget or minReplicas forbids is made by surge when the
// policy turns makeBeforeBreak on and the Deployment can surge; otherwise
// the pod is skipped, and the skip says what keeps makeBeforeBreak from it.
func TestMakeBeforeBreak(t *testing.T) {
	const on = "evictable: {makeBeforeBreak: true}\n"
	web := func(n int) ([]any, []string) {
		objs := []any{ct.DeploymentReplicaSet("shop", "web")}
		var keys []string
		for i := range n {
			objs = append(objs, ct.Pod("shop", fmt.Sprintf("web-%d", i)).On("n1").Requests("100m", "64Mi").Deployment("web"))
			keys = append(keys, fmt.Sprintf("shop/web-%d", i))
		}
		return objs, keys
	}
	unsettled := settled("web", 1)
	unsettled.Status.AvailableReplicas = 0
	tests := []struct {
		name   string
		policy string
		pods   int
		extra  []any
		// moves lists "pod@step" for each move, "surge" marking surges.
		moves   string
		skipped string
	}{
		{
			name: "off by default: a budget of maxUnavailable 0 keeps the pod", pods: 1,
			extra: []any{settled("web", 1), neverAllows("web")},
			skipped: "shop/web-0: pdb: PodDisruptionBudget shop/web can never allow a disruption (maxUnavailable: 0): no eviction moves this pod while the budget stands; " +
				"evictable.makeBeforeBreak moves a Deployment's pod by surge instead",
		},
		{
			name: "on: a single replica under maxUnavailable 0 moves by surge", policy: on, pods: 1,
			extra: []any{settled("web", 1), neverAllows("web")},
			moves: "shop/web-0@1 surge",
		},
		{
			name: "on: three replicas under maxUnavailable 0 all surge, taking nothing from the budget", policy: on, pods: 3,
			extra: []any{settled("web", 3), neverAllows("web")},
			moves: "shop/web-0@1 surge, shop/web-1@1 surge, shop/web-2@1 surge",
		},
		{
			name: "on: a budget that allows the disruption evicts as before", policy: on, pods: 1,
			extra: []any{settled("web", 1), ct.PDB("shop", "web", 1)},
			moves: "shop/web-0@1",
		},
		{
			name: "on: minReplicas keeps a single replica, a surge moves it", policy: "evictable: {makeBeforeBreak: true, minReplicas: 2}\n", pods: 1,
			extra: []any{settled("web", 1)},
			moves: "shop/web-0@1 surge",
		},
		{
			name: "on for one strategy only", policy: "strategies:\n  RemoveDuplicates:\n    evictable: {makeBeforeBreak: true}\n", pods: 1,
			extra: []any{settled("web", 1), neverAllows("web")},
			skipped: "shop/web-0: pdb: PodDisruptionBudget shop/web can never allow a disruption (maxUnavailable: 0): no eviction moves this pod while the budget stands; " +
				"evictable.makeBeforeBreak moves a Deployment's pod by surge instead",
		},
		{
			name: "on for the namespace", policy: "overrides:\n- namespaces: [shop]\n  evictable: {makeBeforeBreak: true}\n", pods: 1,
			extra: []any{settled("web", 1), neverAllows("web")},
			moves: "shop/web-0@1 surge",
		},
		{
			name: "a Deployment in the middle of a rollout waits", policy: on, pods: 1,
			extra: []any{unsettled, neverAllows("web")},
			skipped: "shop/web-0: pdb: PodDisruptionBudget shop/web can never allow a disruption (maxUnavailable: 0): no eviction moves this pod while the budget stands; " +
				"makeBeforeBreak cannot move it: Deployment shop/web is not settled " +
				"(spec.replicas 1, 1 updated, 0 available, 1 in all): a surge waits until every replica is updated and available",
		},
		{
			name: "a Deployment the snapshot lacks cannot be checked", policy: on, pods: 1,
			extra: []any{neverAllows("web")},
			skipped: "shop/web-0: pdb: PodDisruptionBudget shop/web can never allow a disruption (maxUnavailable: 0): no eviction moves this pod while the budget stands; " +
				"makeBeforeBreak cannot move it: Deployment shop/web is not in the snapshot, so a surge of it cannot be checked",
		},
		{
			name: "a Deployment a HorizontalPodAutoscaler scales is left alone", policy: on, pods: 1,
			extra: []any{settled("web", 1), neverAllows("web"), ct.Autoscaler("shop", "web-hpa", "web")},
			skipped: "shop/web-0: pdb: PodDisruptionBudget shop/web can never allow a disruption (maxUnavailable: 0): no eviction moves this pod while the budget stands; " +
				"makeBeforeBreak cannot move it: HorizontalPodAutoscaler shop/web-hpa scales Deployment shop/web, and a surge would race it for spec.replicas",
		},
		{
			name: "limits.total counts surges as moves", policy: on + "limits: {total: 2}\n", pods: 3,
			extra:   []any{settled("web", 3), neverAllows("web")},
			moves:   "shop/web-0@1 surge, shop/web-1@1 surge",
			skipped: "shop/web-2: limit: limits.total reached (2 evictions this cycle)",
		},
		{
			name: "limits.perStep puts surges in steps", policy: on + "limits: {perStep: {workload: 1}}\n", pods: 2,
			extra: []any{settled("web", 2), neverAllows("web")},
			moves: "shop/web-0@1 surge, shop/web-1@2 surge",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pods, keys := web(tt.pods)
			objs := append([]any{ct.Node("n1"), ct.Node("n2"), ct.Node("n3")}, pods...)
			plan := propose(t, loadPolicy(t, tt.policy), ct.Snapshot(t, append(objs, tt.extra...)...), nil, keys...)
			var moves []string
			for _, m := range plan.Moves {
				s := fmt.Sprintf("%s@%d", m.Pod, m.Step)
				if m.Surge {
					s += " surge"
					if m.Budget != "" {
						t.Errorf("%s: a surge counts against no budget, got %q", m.Pod, m.Budget)
					}
				}
				moves = append(moves, s)
			}
			if got := strings.Join(moves, ", "); got != tt.moves {
				t.Errorf("moves %q, want %q", got, tt.moves)
			}
			if got := skipped(plan); got != tt.skipped {
				t.Errorf("skipped:\n%s\nwant:\n%s", got, tt.skipped)
			}
		})
	}
}

// A StatefulSet's pod keeps its identity: it cannot surge, whatever the
// policy says, and keeps its place with that reason.
func TestMakeBeforeBreakLeavesStatefulSets(t *testing.T) {
	snap := ct.Snapshot(t, ct.Node("n1"), ct.Node("n2"), ct.StatefulSet("shop", "db", 1), neverAllows("db"),
		ct.Pod("shop", "db-0").On("n1").Requests("100m", "").Label("app", "db").OwnedBy("StatefulSet", "db"))
	plan := propose(t, loadPolicy(t, "evictable: {makeBeforeBreak: true}\n"), snap, nil, "shop/db-0")
	want := "shop/db-0: pdb: PodDisruptionBudget shop/db can never allow a disruption (maxUnavailable: 0): no eviction moves this pod while the budget stands; " +
		"makeBeforeBreak cannot move it: a StatefulSet's pod keeps its name and volumes, " +
		"so no second one can run beside it; makeBeforeBreak moves only the pods of Deployments"
	if got := skipped(plan); got != want {
		t.Errorf("skipped:\n%s\nwant:\n%s", got, want)
	}
	// Nor does the skip point to the setting when it is off.
	plan = propose(t, loadPolicy(t, ""), snap, nil, "shop/db-0")
	want = "shop/db-0: pdb: PodDisruptionBudget shop/db can never allow a disruption (maxUnavailable: 0): no eviction moves this pod while the budget stands"
	if got := skipped(plan); got != want {
		t.Errorf("setting off, skipped:\n%s\nwant:\n%s", got, want)
	}
}
