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

// A workload that no PodDisruptionBudget covers keeps to its own
// maxUnavailable in each step, as its controller does when it replaces
// pods: a Deployment's rolling update, a StatefulSet one pod at a time.
func TestImplicitBudgets(t *testing.T) {
	rolling := func(maxUnavailable string) appsv1.DeploymentStrategy {
		v := intstr.Parse(maxUnavailable)
		one := intstr.FromInt32(1)
		return appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: &v, MaxSurge: &one}}
	}
	web := func(n int) (objs []any, keys []string) {
		for i := range n {
			name := fmt.Sprintf("web-%d", i)
			objs = append(objs, ct.Pod("shop", name).On("n1").Requests("100m", "64Mi").Deployment("web"))
			keys = append(keys, "shop/"+name)
		}
		return append(objs, ct.DeploymentReplicaSet("shop", "web")), keys
	}
	db := func(n int) (objs []any, keys []string) {
		for i := range n {
			name := fmt.Sprintf("db-%d", i)
			objs = append(objs, ct.Pod("shop", name).On("n1").Requests("100m", "64Mi").Label("app", "db").OwnedBy("StatefulSet", "db"))
			keys = append(keys, "shop/"+name)
		}
		return objs, keys
	}
	parallel := func(replicas int32, maxUnavailable string) appsv1.StatefulSet {
		ss := ct.StatefulSet("shop", "db", replicas)
		v := intstr.Parse(maxUnavailable)
		ss.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
		ss.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{MaxUnavailable: &v}}
		return ss
	}

	tests := []struct {
		name    string
		policy  string
		pods    func() ([]any, []string)
		extra   []any
		steps   string // each move's step, in order
		budget  string // the first move's
		skipped string
	}{
		{
			name:   "a Deployment of 4 with the default maxUnavailable 25%: one pod a step",
			pods:   func() ([]any, []string) { return web(4) },
			extra:  []any{ct.Deployment("shop", "web", 4, appsv1.DeploymentStrategy{})},
			steps:  "1 2 3 4",
			budget: "implicit budget: maxUnavailable 25% of Deployment shop/web: 1 of 4 replicas a step",
		},
		{
			name:   "10 replicas with maxUnavailable 30%: three a step (3.0 rounded down)",
			pods:   func() ([]any, []string) { return web(10) },
			extra:  []any{ct.Deployment("shop", "web", 10, rolling("30%"))},
			steps:  "1 1 1 2 2 2 3 3 3 4",
			budget: "implicit budget: maxUnavailable 30% of Deployment shop/web: 3 of 10 replicas a step",
		},
		{
			name:   "7 replicas with maxUnavailable 50%: three a step (3.5 rounded down)",
			pods:   func() ([]any, []string) { return web(7) },
			extra:  []any{ct.Deployment("shop", "web", 7, rolling("50%"))},
			steps:  "1 1 1 2 2 2 3",
			budget: "implicit budget: maxUnavailable 50% of Deployment shop/web: 3 of 7 replicas a step",
		},
		{
			name:   "maxUnavailable 0 (the rollout surges instead): still one a step, or it could never move",
			pods:   func() ([]any, []string) { return web(3) },
			extra:  []any{ct.Deployment("shop", "web", 3, rolling("0"))},
			steps:  "1 2 3",
			budget: "implicit budget: maxUnavailable 0 of Deployment shop/web: 1 of 3 replicas a step",
		},
		{
			name:   "a Recreate Deployment states none: the default 25%",
			pods:   func() ([]any, []string) { return web(8) },
			extra:  []any{ct.Deployment("shop", "web", 8, appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType})},
			steps:  "1 1 2 2 3 3 4 4",
			budget: "implicit budget: maxUnavailable 25% (the default: its Recreate strategy states none) of Deployment shop/web: 2 of 8 replicas a step",
		},
		{
			name:   "a Deployment the snapshot lacks: the default 25% of its pods there",
			pods:   func() ([]any, []string) { return web(8) },
			steps:  "1 1 2 2 3 3 4 4",
			budget: "implicit budget: maxUnavailable 25% (the default: the Deployment is not in the snapshot) of Deployment shop/web: 2 of 8 replicas a step",
		},
		{
			name:  "a PodDisruptionBudget covers the pods: it decides, not the Deployment",
			pods:  func() ([]any, []string) { return web(4) },
			extra: []any{ct.Deployment("shop", "web", 4, appsv1.DeploymentStrategy{}), ct.PDB("shop", "web", 2)},
			steps: "1 1 2 2",
		},
		{
			name:   "implicitBudgets: false: every pod in one step",
			policy: "implicitBudgets: false",
			pods:   func() ([]any, []string) { return web(4) },
			extra:  []any{ct.Deployment("shop", "web", 4, appsv1.DeploymentStrategy{})},
			steps:  "1 1 1 1",
		},
		{
			name: "a pod not Ready uses the budget up: the Ready ones stay until it is Ready, and it may move",
			pods: func() ([]any, []string) {
				objs, keys := web(3)
				sick := ct.Pod("shop", "web-sick").On("n1").Requests("100m", "64Mi").Deployment("web").NotReady()
				return append(objs, sick), append(keys, "shop/web-sick")
			},
			extra:  []any{ct.Deployment("shop", "web", 4, appsv1.DeploymentStrategy{})},
			steps:  "1",
			budget: "implicit budget: maxUnavailable 25% of Deployment shop/web: 1 of 4 replicas a step",
			skipped: "shop/web-0: pdb: no PodDisruptionBudget covers it; implicit budget: maxUnavailable 25% of Deployment shop/web: 1 of 4 replicas a step, and 1 of its pods is not Ready now, so it allows no disruption until it is\n" +
				"shop/web-1: pdb: no PodDisruptionBudget covers it; implicit budget: maxUnavailable 25% of Deployment shop/web: 1 of 4 replicas a step, and 1 of its pods is not Ready now, so it allows no disruption until it is\n" +
				"shop/web-2: pdb: no PodDisruptionBudget covers it; implicit budget: maxUnavailable 25% of Deployment shop/web: 1 of 4 replicas a step, and 1 of its pods is not Ready now, so it allows no disruption until it is",
		},
		{
			name:   "a StatefulSet: one pod at a time",
			pods:   func() ([]any, []string) { return db(3) },
			extra:  []any{ct.StatefulSet("shop", "db", 3)},
			steps:  "1 2 3",
			budget: "implicit budget: one pod at a time of StatefulSet shop/db: 1 of 3 replicas a step",
		},
		{
			name: "an OrderedReady StatefulSet keeps one at a time, whatever its maxUnavailable",
			pods: func() ([]any, []string) { return db(3) },
			extra: []any{func() any {
				ss := parallel(3, "50%")
				ss.Spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
				return ss
			}()},
			steps:  "1 2 3",
			budget: "implicit budget: one pod at a time of StatefulSet shop/db: 1 of 3 replicas a step",
		},
		{
			name:   "a Parallel StatefulSet with maxUnavailable 50% of 3: two a step (1.5 rounded up)",
			pods:   func() ([]any, []string) { return db(3) },
			extra:  []any{parallel(3, "50%")},
			steps:  "1 1 2",
			budget: "implicit budget: maxUnavailable 50% of StatefulSet shop/db: 2 of 3 replicas a step",
		},
		{
			name: "a ReplicaSet of its own states nothing: no implicit budget",
			pods: func() ([]any, []string) {
				var objs []any
				for i := range 3 {
					objs = append(objs, ct.Pod("shop", fmt.Sprintf("solo-%d", i)).On("n1").Requests("100m", "64Mi").OwnedBy("ReplicaSet", "solo"))
				}
				return objs, []string{"shop/solo-0", "shop/solo-1", "shop/solo-2"}
			},
			steps: "1 1 1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pods, keys := tt.pods()
			objs := append([]any{ct.Node("n1"), ct.Node("n2"), ct.Node("n3"), ct.Node("n4")}, pods...)
			plan := propose(t, loadPolicy(t, tt.policy), ct.Snapshot(t, append(objs, tt.extra...)...), nil, keys...)
			var steps []string
			for _, m := range plan.Moves {
				steps = append(steps, fmt.Sprint(m.Step))
			}
			if got := strings.Join(steps, " "); got != tt.steps {
				t.Errorf("steps %q, want %q", got, tt.steps)
			}
			if len(plan.Moves) > 0 && plan.Moves[0].Budget != tt.budget {
				t.Errorf("budget %q, want %q", plan.Moves[0].Budget, tt.budget)
			}
			if got := skipped(plan); got != tt.skipped {
				t.Errorf("skipped:\n%s\nwant:\n%s", got, tt.skipped)
			}
		})
	}
}

// A budget that allows no disruption even with every pod healthy says so,
// so that its skip does not read as if the next run might move the pod.
func TestBudgetThatCanNeverAllowADisruption(t *testing.T) {
	budget := func(edit func(*policyv1.PodDisruptionBudget)) policyv1.PodDisruptionBudget {
		pdb := ct.PDB("shop", "web", 0)
		edit(&pdb)
		return pdb
	}
	zero, zeroPercent, one := intstr.FromInt32(0), intstr.FromString("0%"), intstr.FromInt32(1)
	const mbb = "evictable.makeBeforeBreak moves a Deployment's pod by surge instead"
	tests := []struct {
		name string
		pdb  policyv1.PodDisruptionBudget
		want string
	}{
		{"maxUnavailable: 0", budget(func(p *policyv1.PodDisruptionBudget) { p.Spec.MinAvailable, p.Spec.MaxUnavailable = nil, &zero }),
			"PodDisruptionBudget shop/web can never allow a disruption (maxUnavailable: 0): no eviction moves this pod while the budget stands; " + mbb},
		{"maxUnavailable: 0%", budget(func(p *policyv1.PodDisruptionBudget) { p.Spec.MinAvailable, p.Spec.MaxUnavailable = nil, &zeroPercent }),
			"PodDisruptionBudget shop/web can never allow a disruption (maxUnavailable: 0%): no eviction moves this pod while the budget stands; " + mbb},
		{"minAvailable: 1 of a single replica", budget(func(p *policyv1.PodDisruptionBudget) {
			p.Spec.MinAvailable, p.Status.ExpectedPods, p.Status.DesiredHealthy, p.Status.CurrentHealthy = &one, 1, 1, 1
		}), "PodDisruptionBudget shop/web can never allow a disruption (minAvailable: 1, all 1 of its pods): no eviction moves this pod while the budget stands; " + mbb},
		{"minAvailable: 1 of three, two not healthy now", budget(func(p *policyv1.PodDisruptionBudget) {
			p.Spec.MinAvailable, p.Status.ExpectedPods, p.Status.DesiredHealthy, p.Status.CurrentHealthy = &one, 3, 1, 1
		}), "PodDisruptionBudget shop/web allows no disruption now (status.disruptionsAllowed 0)"},
		{"maxUnavailable: 1, spent now", budget(func(p *policyv1.PodDisruptionBudget) { p.Spec.MinAvailable, p.Spec.MaxUnavailable = nil, &one }),
			"PodDisruptionBudget shop/web allows no disruption now (status.disruptionsAllowed 0)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := ct.Snapshot(t, ct.Node("n1"), ct.Node("n2"), ct.DeploymentReplicaSet("shop", "web"), tt.pdb,
				ct.Pod("shop", "web-1").On("n1").Requests("100m", "").Deployment("web"))
			plan := propose(t, loadPolicy(t, ""), snap, nil, "shop/web-1")
			if got, want := skipped(plan), "shop/web-1: pdb: "+tt.want; got != want {
				t.Errorf("skipped:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}
