package planner

import (
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

func loadPolicy(t *testing.T, body string) *policy.Policy {
	t.Helper()
	p, err := policy.Load([]byte("apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\n"+body), "policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newEngine(t testing.TB) engine.Placer {
	t.Helper()
	e, err := engine.New(profile.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// propose offers the pods, in order, to a fresh cycle as candidates of a
// strategy called "Test", and returns the plan.
func propose(t *testing.T, pol *policy.Policy, snap *cluster.Snapshot, history []cluster.Eviction, pods ...string) *Plan {
	t.Helper()
	c := (&Planner{Policy: pol, Placer: newEngine(t), History: history}).newCycle(snap)
	for _, key := range pods {
		p := snap.Pod(key)
		if p == nil {
			t.Fatalf("no pod %s", key)
		}
		// Each pod is one the strategy needs to move, as a strategy's
		// Input.Move proposes it.
		if o := c.Move("Test", framework.Candidate{Pod: p, Reason: "test"}); !o.Moved && o.Category != "" {
			c.Skip("Test", p, o)
		}
	}
	c.plan.Skipped = c.skipped()
	return c.plan
}

// movedPods lists the moves in order, each with "@step" past the first.
func movedPods(p *Plan) string {
	var out []string
	for _, m := range p.Moves {
		if m.Step > 1 {
			out = append(out, fmt.Sprintf("%s@%d", m.Pod, m.Step))
			continue
		}
		out = append(out, m.Pod)
	}
	return strings.Join(out, ",")
}

func skipped(p *Plan) string {
	var out []string
	for _, s := range p.Skipped {
		out = append(out, fmt.Sprintf("%s: %s: %s", s.Pod, s.Category, s.Reason))
	}
	return strings.Join(out, "\n")
}

// Four nodes: two full of web and api pods, two empty that can take them.
func busyCluster(t *testing.T, extra ...any) *cluster.Snapshot {
	objs := []any{
		ct.Node("n1"), ct.Node("n2"), ct.Node("n3"), ct.Node("n4"),
		ct.DeploymentReplicaSet("shop", "web"), ct.DeploymentReplicaSet("shop", "api"), ct.DeploymentReplicaSet("blog", "web"),
	}
	for i := range 3 {
		objs = append(objs,
			ct.Pod("shop", fmt.Sprintf("web-n1-%d", i)).On("n1").Requests("100m", "64Mi").Deployment("web"),
			ct.Pod("shop", fmt.Sprintf("api-n1-%d", i)).On("n1").Requests("100m", "64Mi").Deployment("api"),
			ct.Pod("shop", fmt.Sprintf("web-n2-%d", i)).On("n2").Requests("100m", "64Mi").Deployment("web"),
			ct.Pod("blog", fmt.Sprintf("web-n2-%d", i)).On("n2").Requests("100m", "64Mi").Deployment("web"),
		)
	}
	return ct.Snapshot(t, append(objs, extra...)...)
}

func TestLimits(t *testing.T) {
	all := []string{"shop/web-n1-0", "shop/web-n1-1", "shop/api-n1-0", "shop/web-n2-0", "blog/web-n2-0", "blog/web-n2-1", "shop/api-n1-1"}
	tests := []struct {
		name   string
		policy string
		moved  string
		skips  string
	}{
		{
			name:  "no limits",
			moved: strings.Join(all, ","),
		},
		{
			name:   "total",
			policy: "limits: {total: 2}",
			moved:  "shop/web-n1-0,shop/web-n1-1",
			skips: "shop/api-n1-0: limit: limits.total reached (2 evictions this cycle)\n" +
				"shop/web-n2-0: limit: limits.total reached (2 evictions this cycle)\n" +
				"blog/web-n2-0: limit: limits.total reached (2 evictions this cycle)\n" +
				"blog/web-n2-1: limit: limits.total reached (2 evictions this cycle)\n" +
				"shop/api-n1-1: limit: limits.total reached (2 evictions this cycle)",
		},
		{
			// A third pod of n1 waits for the next step; steps only grow,
			// since a move may use the room an earlier one made.
			name:   "per node, per step",
			policy: "limits: {perNode: 2}",
			moved:  "shop/web-n1-0,shop/web-n1-1,shop/api-n1-0@2,shop/web-n2-0@2,blog/web-n2-0@2,blog/web-n2-1@3,shop/api-n1-1@3",
			skips:  "",
		},
		{
			name:   "per namespace, per step",
			policy: "limits: {perNamespace: 1}",
			moved:  "shop/web-n1-0,shop/web-n1-1@2,shop/api-n1-0@3,shop/web-n2-0@4,blog/web-n2-0@4,blog/web-n2-1@5,shop/api-n1-1@5",
			skips:  "",
		},
		{
			name:   "per namespace, tuned by an override",
			policy: "limits: {perNamespace: 1}\noverrides:\n- namespaces: [blog]\n  limits: {perNamespace: 5}",
			moved:  "shop/web-n1-0,shop/web-n1-1@2,shop/api-n1-0@3,shop/web-n2-0@4,blog/web-n2-0@4,blog/web-n2-1@4,shop/api-n1-1@5",
			skips:  "",
		},
		{
			name:   "per workload: shop's and blog's web are different workloads",
			policy: "limits: {perWorkload: 1}",
			moved:  "shop/web-n1-0,shop/web-n1-1@2,shop/api-n1-0@2,shop/web-n2-0@3,blog/web-n2-0@3,blog/web-n2-1@4,shop/api-n1-1@4",
			skips:  "",
		},
		{
			name:   "per node, per step, under its new name",
			policy: "limits: {perStep: {node: 2}}",
			moved:  "shop/web-n1-0,shop/web-n1-1,shop/api-n1-0@2,shop/web-n2-0@2,blog/web-n2-0@2,blog/web-n2-1@3,shop/api-n1-1@3",
			skips:  "",
		},
		{
			// The descheduler's maxNoOfPodsToEvictPerNode: n1's third pod
			// waits for the next run, not for a next step.
			name:   "per node, per run",
			policy: "limits: {perRun: {node: 2}}",
			moved:  "shop/web-n1-0,shop/web-n1-1,shop/web-n2-0,blog/web-n2-0",
			skips: "shop/api-n1-0: limit: per-run limit of 2 evictions from node n1 reached (limits.perRun.node)\n" +
				"blog/web-n2-1: limit: per-run limit of 2 evictions from node n2 reached (limits.perRun.node)\n" +
				"shop/api-n1-1: limit: per-run limit of 2 evictions from node n1 reached (limits.perRun.node)",
		},
		{
			name:   "per node, per run and paced one a step",
			policy: "limits: {perRun: {node: 2}, perStep: {node: 1}}",
			moved:  "shop/web-n1-0,shop/web-n1-1@2,shop/web-n2-0@2,blog/web-n2-0@3",
			skips: "shop/api-n1-0: limit: per-run limit of 2 evictions from node n1 reached (limits.perRun.node)\n" +
				"blog/web-n2-1: limit: per-run limit of 2 evictions from node n2 reached (limits.perRun.node)\n" +
				"shop/api-n1-1: limit: per-run limit of 2 evictions from node n1 reached (limits.perRun.node)",
		},
		{
			name:   "per namespace, per run",
			policy: "limits: {perRun: {namespace: 2}}",
			moved:  "shop/web-n1-0,shop/web-n1-1,blog/web-n2-0,blog/web-n2-1",
			skips: "shop/api-n1-0: limit: per-run limit of 2 evictions in namespace shop reached (limits.perRun.namespace)\n" +
				"shop/web-n2-0: limit: per-run limit of 2 evictions in namespace shop reached (limits.perRun.namespace)\n" +
				"shop/api-n1-1: limit: per-run limit of 2 evictions in namespace shop reached (limits.perRun.namespace)",
		},
		{
			// The override replaces the per-run bound and keeps the
			// per-step one it does not set.
			name:   "per namespace, per run, tuned by an override",
			policy: "limits: {perRun: {namespace: 2}, perStep: {namespace: 1}}\noverrides:\n- namespaces: [blog]\n  limits: {perRun: {namespace: 1}}",
			moved:  "shop/web-n1-0,shop/web-n1-1@2,blog/web-n2-0@2",
			skips: "shop/api-n1-0: limit: per-run limit of 2 evictions in namespace shop reached (limits.perRun.namespace)\n" +
				"shop/web-n2-0: limit: per-run limit of 2 evictions in namespace shop reached (limits.perRun.namespace)\n" +
				"blog/web-n2-1: limit: per-run limit of 1 eviction in namespace blog reached (limits.perRun.namespace)\n" +
				"shop/api-n1-1: limit: per-run limit of 2 evictions in namespace shop reached (limits.perRun.namespace)",
		},
		{
			// No Deployment object in the snapshot: shop's web counts its
			// six pods as replicas (25%: 2), api and blog's web three (1).
			name:   "per workload, per run, a percentage of the replicas",
			policy: "limits: {perRun: {workload: 25%}}",
			moved:  "shop/web-n1-0,shop/web-n1-1,shop/api-n1-0,blog/web-n2-0",
			skips: "shop/web-n2-0: limit: per-run limit of 2 evictions of Deployment shop/web reached (limits.perRun.workload: 25% of 6 replicas: 2)\n" +
				"blog/web-n2-1: limit: per-run limit of 1 eviction of Deployment blog/web reached (limits.perRun.workload: 25% of 3 replicas: 1)\n" +
				"shop/api-n1-1: limit: per-run limit of 1 eviction of Deployment shop/api reached (limits.perRun.workload: 25% of 3 replicas: 1)",
		},
		{
			name:   "per workload, per step, a percentage",
			policy: "limits: {perStep: {workload: 25%}}",
			moved:  "shop/web-n1-0,shop/web-n1-1,shop/api-n1-0,shop/web-n2-0@2,blog/web-n2-0@2,blog/web-n2-1@3,shop/api-n1-1@3",
			skips:  "",
		},
		{
			name:   "zero forbids evictions",
			policy: "limits: {total: 0}",
			moved:  "",
			skips: func() string {
				var lines []string
				for _, p := range all {
					lines = append(lines, p+": limit: limits.total reached (0 evictions this cycle)")
				}
				return strings.Join(lines, "\n")
			}(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The limits alone: TestImplicitBudgets has the workloads'
			// own budgets.
			plan := propose(t, loadPolicy(t, "implicitBudgets: false\n"+tt.policy), busyCluster(t), nil, all...)
			if got := movedPods(plan); got != tt.moved {
				t.Errorf("moved %s\nwant  %s", got, tt.moved)
			}
			if got := skipped(plan); got != tt.skips {
				t.Errorf("skipped:\n%s\nwant:\n%s", got, tt.skips)
			}
		})
	}
}

// A workload limit given as a percentage is of the workload's replicas,
// rounded up as a PodDisruptionBudget's maxUnavailable is: every percentage
// above 0% lets at least one pod go.
func TestWorkloadLimitPercentages(t *testing.T) {
	tests := []struct {
		name     string
		limit    string
		replicas int32
		// statefulSet: the pods are a StatefulSet's, else a Deployment's.
		statefulSet bool
		moved       int
	}{
		{name: "25% of 1 replica is 1", limit: "25%", replicas: 1, moved: 1},
		{name: "25% of 4 replicas is 1", limit: "25%", replicas: 4, moved: 1},
		{name: "25% of 5 replicas is 2", limit: "25%", replicas: 5, moved: 2},
		{name: "50% of 3 replicas is 2", limit: "50%", replicas: 3, moved: 2},
		{name: "100% of 3 replicas is 3", limit: "100%", replicas: 3, moved: 3},
		{name: "0% is none", limit: "0%", replicas: 4, moved: 0},
		{name: "a count is a count", limit: "3", replicas: 8, moved: 3},
		{name: "a StatefulSet's spec.replicas", limit: "30%", replicas: 6, statefulSet: true, moved: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := []any{ct.Node("n1"), ct.Node("n2"), ct.Node("n3")}
			if tt.statefulSet {
				objs = append(objs, ct.StatefulSet("shop", "db", tt.replicas))
			} else {
				objs = append(objs, ct.Deployment("shop", "web", tt.replicas, appsv1.DeploymentStrategy{}), ct.DeploymentReplicaSet("shop", "web"))
			}
			var keys []string
			for i := range tt.replicas {
				b := ct.Pod("shop", fmt.Sprintf("web-%d", i)).On("n1").Requests("100m", "64Mi").Deployment("web")
				if tt.statefulSet {
					b = ct.Pod("shop", fmt.Sprintf("db-%d", i)).On("n1").Requests("100m", "64Mi").OwnedBy("StatefulSet", "db")
				}
				objs = append(objs, b)
				keys = append(keys, b.Obj().Namespace+"/"+b.Obj().Name)
			}
			pol := loadPolicy(t, "implicitBudgets: false\nlimits: {perRun: {workload: "+tt.limit+"}}")
			plan := propose(t, pol, ct.Snapshot(t, objs...), nil, keys...)
			if got := len(plan.Moves); got != tt.moved {
				t.Errorf("moved %d of %d replicas, want %d\n%s", got, tt.replicas, tt.moved, skipped(plan))
			}
		})
	}
}

func TestPDBBudgets(t *testing.T) {
	tests := []struct {
		name  string
		extra []any
		pods  []string
		moved string
		skips string
	}{
		{
			// The run waits for the budget to come back before step 2.
			name:  "a budget of one is spent by the first eviction of each step",
			extra: []any{ct.PDB("shop", "web", 1)},
			pods:  []string{"shop/web-n1-0", "shop/web-n1-1", "shop/api-n1-0"},
			moved: "shop/web-n1-0,shop/web-n1-1@2,shop/api-n1-0@2",
		},
		{
			name: "a budget whose status lags its spec allows nothing",
			extra: []any{func() any {
				p := ct.PDB("shop", "web", 3)
				p.Generation = 2
				return p
			}()},
			pods:  []string{"shop/web-n1-0"},
			skips: "shop/web-n1-0: pdb: PodDisruptionBudget shop/web: its status is not up to date (observedGeneration 1 < generation 2), so it allows no disruption",
		},
		{
			name: "a not-ready pod of a healthy application does not spend the budget",
			extra: []any{
				func() any {
					p := ct.PDB("shop", "cache", 0)
					p.Status.CurrentHealthy, p.Status.DesiredHealthy = 2, 2
					return p
				}(),
				ct.DeploymentReplicaSet("shop", "cache"),
				ct.Pod("shop", "cache-sick").On("n1").Requests("100m", "").Deployment("cache").NotReady(),
				ct.Pod("shop", "cache-ok").On("n1").Requests("100m", "").Deployment("cache"),
			},
			pods:  []string{"shop/cache-sick", "shop/cache-ok"},
			moved: "shop/cache-sick",
			skips: "shop/cache-ok: pdb: PodDisruptionBudget shop/cache allows no disruption now (status.disruptionsAllowed 0)",
		},
		{
			name: "two budgets over one pod: the Eviction API refuses it",
			extra: []any{ct.PDB("shop", "web", 5), func() any {
				p := ct.PDB("shop", "web", 5)
				p.Name = "web-too"
				return p
			}()},
			pods:  []string{"shop/web-n1-0"},
			skips: "shop/web-n1-0: pdb: covered by 2 PodDisruptionBudgets (web, web-too); the Eviction API refuses pods with more than one",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := propose(t, loadPolicy(t, ""), busyCluster(t, tt.extra...), nil, tt.pods...)
			if got := movedPods(plan); got != tt.moved {
				t.Errorf("moved %q, want %q", got, tt.moved)
			}
			if got := skipped(plan); got != tt.skips {
				t.Errorf("skipped:\n%s\nwant:\n%s", got, tt.skips)
			}
		})
	}
}

func TestProtections(t *testing.T) {
	emptyDir := corev1.Volume{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	pvc := corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}
	web := func(name string) *ct.PodBuilder {
		return ct.Pod("shop", name).On("n1").Requests("100m", "64Mi").Deployment("web")
	}
	tests := []struct {
		name   string
		policy string
		pod    *ct.PodBuilder
		skip   string // "" when the pod moves
	}{
		{name: "an ordinary Deployment pod moves", pod: web("p")},
		{name: "mirror pod", pod: ct.Pod("kube-system", "etcd-n1").On("n1").Annotate(corev1.MirrorPodAnnotationKey, "x").Annotate("rebalancer.dev/evict", "true"),
			skip: "protected: static pod (mirror): the kubelet owns it"},
		{name: "DaemonSet pod, even opted in", pod: ct.Pod("kube-system", "proxy").On("n1").OwnedBy("DaemonSet", "kube-proxy").Annotate("rebalancer.dev/evict", "true"),
			skip: "protected: DaemonSet pod: it would come back on the same node"},
		{name: "terminating pod", pod: web("p").Edit(func(p *corev1.Pod) { p.DeletionTimestamp = &p.CreationTimestamp }),
			skip: "protected: already terminating"},
		{name: "system-cluster-critical pod", pod: web("p").PriorityClass("system-cluster-critical"),
			skip: "protected: priority 2000000000 is at or above the protected threshold 2000000000 (PriorityClass system-cluster-critical)"},
		{name: "system-critical pods allowed", policy: "evictable: {systemCritical: true}", pod: web("p").PriorityClass("system-cluster-critical")},
		{name: "custom priority threshold", policy: "evictable: {priorityThreshold: {value: 1000}}", pod: web("p").Priority(1000),
			skip: "protected: priority 1000 is at or above the protected threshold 1000 (evictable.priorityThreshold.value)"},
		{name: "a priority class the cluster does not have protects every pod", policy: "evictable: {priorityThreshold: {name: gold}}", pod: web("p"),
			skip: "protected: evictable.priorityThreshold.name names PriorityClass gold, which the cluster does not have"},
		{name: "local storage", pod: web("p").Volume(emptyDir),
			skip: "protected: uses local storage (emptyDir or hostPath), which eviction would lose; allow with evictable.localStorage"},
		{name: "local storage allowed", policy: "evictable: {localStorage: true}", pod: web("p").Volume(emptyDir)},
		{name: "PVC allowed by default", pod: web("p").Volume(pvc)},
		{name: "PVC forbidden", policy: "evictable: {pvc: false}", pod: web("p").Volume(pvc),
			skip: "protected: uses a PersistentVolumeClaim; allow with evictable.pvc"},
		{name: "bare pod", pod: ct.Pod("shop", "p").On("n1"),
			skip: "protected: bare pod: no controller would recreate it; allow with evictable.barePods"},
		{name: "too young", policy: "evictable: {minPodAge: 1h}", pod: web("p").CreatedAgo(10 * time.Minute),
			skip: "protected: younger than evictable.minPodAge (10m0s < 1h0m0s)"},
		{name: "age unknown", policy: "evictable: {minPodAge: 1h}", pod: web("p").Edit(func(p *corev1.Pod) { p.CreationTimestamp = metav1.Time{} }),
			skip: "protected: its age is unknown (metadata.creationTimestamp is not set), so evictable.minPodAge cannot be checked"},
		{name: "not selected", policy: "evictable: {labelSelector: {matchLabels: {movable: \"yes\"}}}", pod: web("p"),
			skip: "protected: not selected by evictable.labelSelector"},
		{name: "opted in past a soft protection", pod: web("p").Volume(emptyDir).Annotate("rebalancer.dev/evict", "true")},
		{name: "opted out", pod: web("p").Annotate("rebalancer.dev/evict", "false"),
			skip: `opted-out: opted out with rebalancer.dev/evict: "false"`},
		// The descheduler's opt-in, with any value, as the descheduler reads it.
		{name: "descheduler opt-in past local storage", pod: web("p").Volume(emptyDir).Annotate("descheduler.alpha.kubernetes.io/evict", "")},
		{name: "descheduler opt-in past a system-critical priority", pod: web("p").PriorityClass("system-cluster-critical").
			Annotate("descheduler.alpha.kubernetes.io/evict", "true")},
		{name: "descheduler opt-in even when it says false", pod: web("p").Volume(emptyDir).Annotate("descheduler.alpha.kubernetes.io/evict", "false")},
		{name: "descheduler opt-in past evictable.labelSelector and minPodAge", policy: "evictable: {labelSelector: {matchLabels: {movable: \"yes\"}}, minPodAge: 1h}",
			pod: web("p").CreatedAgo(10*time.Minute).Annotate("descheduler.alpha.kubernetes.io/evict", "true")},
		{name: "descheduler opt-in, opted out for rebalancer", pod: web("p").Annotate("descheduler.alpha.kubernetes.io/evict", "true").Annotate("rebalancer.dev/evict", "false"),
			skip: `opted-out: opted out with rebalancer.dev/evict: "false"`},
		{name: "descheduler opt-in is not past a DaemonSet", pod: ct.Pod("kube-system", "proxy").On("n1").OwnedBy("DaemonSet", "kube-proxy").
			Annotate("descheduler.alpha.kubernetes.io/evict", "true"),
			skip: "protected: DaemonSet pod: it would come back on the same node"},
		{name: "descheduler opt-in is not past a terminating pod", pod: web("p").Edit(func(p *corev1.Pod) { p.DeletionTimestamp = &p.CreationTimestamp }).
			Annotate("descheduler.alpha.kubernetes.io/evict", "true"),
			skip: "protected: already terminating"},
		{name: "descheduler opt-in is not past the policy's namespaces", policy: "namespaces: {exclude: [shop]}", pod: web("p").Annotate("descheduler.alpha.kubernetes.io/evict", "true"),
			skip: "excluded: namespace shop is excluded by the policy"},
		{name: "namespace excluded", policy: "namespaces: {exclude: [shop]}", pod: web("p"),
			skip: "excluded: namespace shop is excluded by the policy"},
		{name: "source node not selected", policy: "nodeSelector: {matchLabels: {pool: general}}", pod: web("p"),
			skip: "excluded: node n1 is not selected by the policy's nodeSelector"},
		{name: "per-namespace override allows local storage", policy: "overrides:\n- namespaces: [shop]\n  evictable: {localStorage: true}", pod: web("p").Volume(emptyDir)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.pod.Obj()
			// The claim of the pods with a PVC, and its volume.
			claim := []any{ct.PVC("shop", "data").Bound("pv-data"), ct.PV("pv-data").BoundTo("shop", "data")}
			snap := ct.Snapshot(t, append(claim, ct.Node("n1"), ct.Node("n2"), ct.DeploymentReplicaSet("shop", "web"), p)...)
			plan := propose(t, loadPolicy(t, tt.policy), snap, nil, p.Namespace+"/"+p.Name)
			if tt.skip == "" {
				if len(plan.Moves) != 1 || plan.Moves[0].To != "n2" {
					t.Errorf("want the pod moved to n2; plan %+v, skipped %s", plan.Moves, skipped(plan))
				}
				return
			}
			want := p.Namespace + "/" + p.Name + ": " + tt.skip
			if len(plan.Moves) != 0 || skipped(plan) != want {
				t.Errorf("skipped:\n%s\nwant:\n%s", skipped(plan), want)
			}
		})
	}
}

// An opted-in pod still respects budgets and limits.
func TestOptInIsNotPastBudgetsOrLimits(t *testing.T) {
	snap := ct.Snapshot(t, ct.Node("n1"), ct.Node("n2"), ct.DeploymentReplicaSet("shop", "web"), ct.PDB("shop", "web", 0),
		ct.Pod("shop", "p").On("n1").Requests("100m", "").Deployment("web").Annotate("rebalancer.dev/evict", "true"),
		ct.Pod("shop", "q").On("n1").Requests("100m", "").Annotate("rebalancer.dev/evict", "true"))
	plan := propose(t, loadPolicy(t, "limits: {total: 0}"), snap, nil, "shop/p", "shop/q")
	want := "shop/p: limit: limits.total reached (0 evictions this cycle)\nshop/q: limit: limits.total reached (0 evictions this cycle)"
	if got := skipped(plan); got != want {
		t.Errorf("skipped:\n%s\nwant:\n%s", got, want)
	}
	plan = propose(t, loadPolicy(t, ""), snap, nil, "shop/p", "shop/q")
	if got := skipped(plan); got != "shop/p: pdb: PodDisruptionBudget shop/web allows no disruption now (status.disruptionsAllowed 0)" {
		t.Errorf("skipped: %s", got)
	}
	// The bare pod has no replacement to place.
	if len(plan.Moves) != 1 || plan.Moves[0].Pod != "shop/q" || plan.Moves[0].To != "" || plan.Moves[0].From != "n1" {
		t.Errorf("moves = %+v, want shop/q from n1, not replaced", plan.Moves)
	}
}

// Capacity is reserved move by move: a node with room for one more pod
// takes the first candidate only.
func TestCapacityIsReservedAcrossMoves(t *testing.T) {
	snap := ct.Snapshot(t,
		ct.Node("full").CPU("2"), ct.Node("roomy").CPU("2"), ct.Node("tight").CPU("2"),
		ct.DeploymentReplicaSet("shop", "web"),
		ct.Pod("shop", "a").On("full").Requests("600m", "").Deployment("web"),
		ct.Pod("shop", "b").On("full").Requests("600m", "").Deployment("web"),
		ct.Pod("shop", "c").On("full").Requests("600m", "").Deployment("web"),
		ct.Pod("shop", "filler").On("tight").Requests("1500m", "").Deployment("web"),
		ct.Pod("shop", "half").On("roomy").Requests("1", "").Deployment("web"),
	)
	// roomy has 1 CPU free and tight 500m: a goes to roomy, which keeps
	// 400m; then no node but the one the pods leave has 600m.
	plan := propose(t, loadPolicy(t, ""), snap, nil, "shop/a", "shop/b", "shop/c")
	if got := movedPods(plan); got != "shop/a" || plan.Moves[0].To != "roomy" {
		t.Fatalf("moves = %+v, want shop/a to roomy", plan.Moves)
	}
	want := "shop/b: no-fit: no other node can take it: 0/3 nodes are available: "
	if got := skipped(plan); !strings.HasPrefix(got, want) || !strings.Contains(got, "2 Insufficient cpu") {
		t.Errorf("skipped:\n%s\nwant prefix:\n%s and 2 Insufficient cpu", got, want)
	}
	// A pod that found no node is back where it was, with its resources.
	c := (&Planner{Policy: loadPolicy(t, ""), Placer: newEngine(t)}).newCycle(snap)
	c.Move("Test", framework.Candidate{Pod: snap.Pod("shop/a")})
	c.Move("Test", framework.Candidate{Pod: snap.Pod("shop/b")})
	if n := c.snap.NodeOf(snap.Pod("shop/b")); n == nil || n.Name != "full" {
		t.Errorf("after a failed placement the pod is on %v, want full", n)
	}
	if got := c.snap.Node("full").Requested.MilliCPU; got != 1200 {
		t.Errorf("full requests %dm, want 1200m (b and c)", got)
	}
	if got := c.snap.Node("roomy").Requested.MilliCPU; got != 1600 {
		t.Errorf("roomy requests %dm, want 1600m (half and a)", got)
	}
	// The plan's fork left the snapshot it was given alone.
	if got := snap.Node("roomy").Requested.MilliCPU; got != 1000 {
		t.Errorf("input snapshot changed: roomy requests %dm, want 1000m", got)
	}
}

func TestAcceptRestrictsTargets(t *testing.T) {
	snap := busyCluster(t)
	c := (&Planner{Policy: loadPolicy(t, ""), Placer: newEngine(t)}).newCycle(snap)
	out := c.Move("Test", framework.Candidate{Pod: snap.Pod("shop/web-n1-0"), Accept: func(n *cluster.Node) (bool, string) {
		return n.Name == "n4", "node(s) were not n4"
	}})
	if !out.Moved || out.To != "n4" {
		t.Errorf("outcome = %+v, want a move to n4", out)
	}
	out = c.Move("Test", framework.Candidate{Pod: snap.Pod("shop/web-n1-1"), Accept: func(*cluster.Node) (bool, string) {
		return false, "node(s) were not wanted"
	}})
	if out.Moved || !strings.Contains(out.Reason, "3 node(s) were not wanted") {
		t.Errorf("outcome = %+v, want no move, counting the strategy's reason", out)
	}
}

func TestAPodMovesOnce(t *testing.T) {
	plan := propose(t, loadPolicy(t, ""), busyCluster(t), nil, "shop/web-n1-0", "shop/web-n1-0")
	if len(plan.Moves) != 1 || len(plan.Skipped) != 0 {
		t.Errorf("moves %d, skipped %s; want one move and no skip", len(plan.Moves), skipped(plan))
	}
}

func TestCooldown(t *testing.T) {
	history := []cluster.Eviction{
		{Pod: "shop/web-old", Workload: cluster.Workload{Kind: "Deployment", Namespace: "shop", Name: "web"}, At: ct.Now.Add(-2 * time.Minute)},
		{Pod: "shop/api-old", Workload: cluster.Workload{Kind: "Deployment", Namespace: "shop", Name: "api"}, At: ct.Now.Add(-20 * time.Minute)},
	}
	plan := propose(t, loadPolicy(t, ""), busyCluster(t), history, "shop/web-n1-0", "shop/api-n1-0")
	if got := movedPods(plan); got != "shop/api-n1-0" {
		t.Errorf("moved %s, want only shop/api-n1-0 (its eviction is older than the 5m cooldown)", got)
	}
	want := "shop/web-n1-0: cooldown: Deployment shop/web had a pod evicted 2m0s ago; cooldown 5m0s lets its replacements settle"
	if got := skipped(plan); got != want {
		t.Errorf("skipped:\n%s\nwant:\n%s", got, want)
	}
	plan = propose(t, loadPolicy(t, "cooldown: 0s"), busyCluster(t), history, "shop/web-n1-0")
	if len(plan.Moves) != 1 {
		t.Errorf("with cooldown 0 the pod should move; skipped: %s", skipped(plan))
	}
}

// The cooldown counts only evictions that happened: an intent whose pod is
// still on its node under the same UID was never carried out (the run that
// recorded it was killed). An eviction dated in the future counts as made
// now, not until that future.
func TestCooldownCountsWhatHappened(t *testing.T) {
	web := cluster.Workload{Kind: "Deployment", Namespace: "shop", Name: "web"}
	tests := []struct {
		name     string
		recorded cluster.Eviction
		wantMove bool
	}{
		{name: "evicted 2m ago", recorded: cluster.Eviction{Pod: "shop/web-old", UID: "shop/web-old", Workload: web, From: "n1", At: ct.Now.Add(-2 * time.Minute)}},
		{name: "recorded 2m ago, never carried out: the pod is still on n1", wantMove: true,
			recorded: cluster.Eviction{Pod: "shop/web-n1-1", UID: "shop/web-n1-1", Workload: web, From: "n1", At: ct.Now.Add(-2 * time.Minute)}},
		{name: "dated a month ahead, cooldown ends 5m from now, not then", recorded: cluster.Eviction{Pod: "shop/web-old", UID: "shop/web-old", Workload: web, From: "n1", At: ct.Now.Add(30 * 24 * time.Hour)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := propose(t, loadPolicy(t, ""), busyCluster(t), []cluster.Eviction{tt.recorded}, "shop/web-n1-0")
			if moved := len(plan.Moves) == 1; moved != tt.wantMove {
				t.Errorf("moved: %v, want %v; skipped: %s", moved, tt.wantMove, skipped(plan))
			}
			if !tt.wantMove && !strings.Contains(skipped(plan), "evicted 0s ago") && tt.recorded.At.After(ct.Now) {
				t.Errorf("skipped: %s; want the future eviction taken as made now", skipped(plan))
			}
		})
	}
}

func TestNotReadyNodesGiveNoPods(t *testing.T) {
	snap := ct.Snapshot(t, ct.Node("n1").NotReady(), ct.Node("n2"), ct.DeploymentReplicaSet("shop", "web"),
		ct.Pod("shop", "p").On("n1").Deployment("web"))
	plan := propose(t, loadPolicy(t, ""), snap, nil, "shop/p")
	if got := skipped(plan); got != "shop/p: node-not-ready: node n1 is not Ready: the kubelet could not stop the pod" {
		t.Errorf("skipped: %s", got)
	}
}

func TestPolicyNodeSelectorLimitsTargets(t *testing.T) {
	snap := ct.Snapshot(t, ct.Node("n1").Label("pool", "general"), ct.Node("n2").Label("pool", "gpu"), ct.Node("n3").Label("pool", "general"),
		ct.DeploymentReplicaSet("shop", "web"), ct.Pod("shop", "p").On("n1").Requests("100m", "").Deployment("web"))
	plan := propose(t, loadPolicy(t, "nodeSelector: {matchLabels: {pool: general}}"), snap, nil, "shop/p")
	if len(plan.Moves) != 1 || plan.Moves[0].To != "n3" {
		t.Errorf("moves = %+v, want to n3: n2 is outside the policy's nodes", plan.Moves)
	}
}

// Once limits.total is spent the cycle stops: the plan says so instead of
// listing every remaining pod as skipped.
func TestTotalLimitStopsTheCycle(t *testing.T) {
	objs := []any{ct.Node("hot"), ct.Node("idle"), ct.DeploymentReplicaSet("shop", "web")}
	for i := range 8 {
		objs = append(objs, ct.Pod("shop", fmt.Sprintf("web-%d", i)).On("hot").Requests("400m", "").Deployment("web"))
	}
	pol := loadPolicy(t, "limits: {total: 1}\nstrategies:\n  LowNodeUtilization: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}\n")
	plan := (&Planner{Policy: pol, Placer: newEngine(t)}).Plan(ct.Snapshot(t, objs...))
	if len(plan.Moves) != 1 || len(plan.Skipped) != 0 {
		t.Errorf("%d moves and skipped:\n%s\nwant one move and nothing skipped", len(plan.Moves), skipped(plan))
	}
	if want := "limits.total reached (1 evictions): the rest waits for the next cycle"; plan.Stopped != want {
		t.Errorf("stopped = %q, want %q", plan.Stopped, want)
	}
}

// A finished pod holds nothing on its node, but it is bound there: the move
// names the node, and the node's limit counts it, as the descheduler counts
// evictions by spec.nodeName.
func TestFinishedPodsLeaveTheirNode(t *testing.T) {
	failed := func(name, node string) *ct.PodBuilder {
		return ct.Pod("batch", name).On(node).OwnedBy("Job", "report").Failed("", "Error", 1)
	}
	tests := []struct {
		name   string
		nodes  []any
		policy string
		moves  string // "pod from→to@step" in order
	}{
		{
			name:  "from is the node the pod is bound to; nothing is placed",
			moves: "batch/a n1→@1,batch/b n1→@1,batch/c n2→@1",
		},
		{
			name:   "limits.perNode counts them on their node",
			policy: "limits: {perNode: 1}",
			moves:  "batch/a n1→@1,batch/b n1→@2,batch/c n2→@2",
		},
		{
			// The API server deletes a finished pod at once: no kubelet
			// needs to stop it.
			name:  "a NotReady node keeps no finished pod",
			nodes: []any{ct.Node("n1").NotReady(), ct.Node("n2")},
			moves: "batch/a n1→@1,batch/b n1→@1,batch/c n2→@1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes := tt.nodes
			if nodes == nil {
				nodes = []any{ct.Node("n1"), ct.Node("n2")}
			}
			snap := ct.Snapshot(t, append(nodes, failed("a", "n1"), failed("b", "n1"), failed("c", "n2"))...)
			plan := propose(t, loadPolicy(t, tt.policy), snap, nil, "batch/a", "batch/b", "batch/c")
			var got []string
			for _, m := range plan.Moves {
				got = append(got, fmt.Sprintf("%s %s→%s@%d", m.Pod, m.From, m.To, m.Step))
			}
			if strings.Join(got, ",") != tt.moves {
				t.Errorf("moves %s\nwant  %s\nskipped: %s", strings.Join(got, ","), tt.moves, skipped(plan))
			}
		})
	}
}

// kube-scheduler admits a pod onto a node whose NoExecute taint it
// tolerates for tolerationSeconds; the taint manager evicts it when they are
// up. Such a node is never a target, and the skip says so when it was the
// only one.
func TestNoTargetThePodWouldBeThrownOff(t *testing.T) {
	tolerate := func(seconds *int64) corev1.Toleration {
		return corev1.Toleration{Key: "maintenance", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: seconds}
	}
	tests := []struct {
		name       string
		nodes      []any
		toleration corev1.Toleration
		moved      string
		skips      string
	}{
		{
			name:       "tolerated for 300 seconds, the only other node: skipped",
			nodes:      []any{ct.Node("n2").Taint("maintenance", "", corev1.TaintEffectNoExecute)},
			toleration: tolerate(new(int64(300))),
			skips: "shop/web-0: no-fit: no other node can take it: 0/2 nodes are available: " +
				"1 node(s) had a NoExecute taint that the pod tolerates only for its tolerationSeconds, after which the taint manager would evict it, " +
				"1 node(s) were excluded as the node the pod leaves.",
		},
		{
			name:       "tolerated for good: a target",
			nodes:      []any{ct.Node("n2").Taint("maintenance", "", corev1.TaintEffectNoExecute)},
			toleration: tolerate(nil),
			moved:      "shop/web-0 n1→n2",
		},
		{
			name:       "tolerated for 300 seconds, another node: the other node",
			nodes:      []any{ct.Node("n2").Taint("maintenance", "", corev1.TaintEffectNoExecute), ct.Node("n3")},
			toleration: tolerate(new(int64(300))),
			moved:      "shop/web-0 n1→n3",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := append([]any{ct.Node("n1"), ct.DeploymentReplicaSet("shop", "web"),
				ct.Pod("shop", "web-0").On("n1").Requests("100m", "").Deployment("web").Toleration(tt.toleration)}, tt.nodes...)
			plan := propose(t, loadPolicy(t, ""), ct.Snapshot(t, objs...), nil, "shop/web-0")
			var moved []string
			for _, m := range plan.Moves {
				moved = append(moved, m.Pod+" "+m.From+"→"+m.To)
			}
			if got := strings.Join(moved, ","); got != tt.moved {
				t.Errorf("moved %s, want %s", got, tt.moved)
			}
			if got := skipped(plan); got != tt.skips {
				t.Errorf("skipped:\n%s\nwant:\n%s", got, tt.skips)
			}
		})
	}
}
