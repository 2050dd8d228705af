package planner

import (
	"fmt"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/policy"
)

// Pods of Jobs stay unless the policy or the Job says that evicting them
// costs nothing, as the Job controller would count the deleted pod against
// backoffLimit.
func TestJobPods(t *testing.T) {
	ignoreDisruptions := batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionIgnore,
		OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}}}
	cronJob := func() batchv1.Job {
		j := ct.Job("batch", "report-29150000")
		yes := true
		j.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "CronJob", Name: "report", Controller: &yes}}
		return j
	}
	tests := []struct {
		name   string
		policy string
		job    any // the Job object, or nil when the snapshot lacks it
		pod    *ct.PodBuilder
		skip   string // "" when the pod moves
	}{
		{name: "a running pod of a Job", job: ct.Job("batch", "pi"), pod: ct.Pod("batch", "pi-x7k2p").OwnedBy("Job", "pi"),
			skip: "protected: pod of Job batch/pi: evicting it counts as a failed attempt against the Job's backoffLimit and loses its work; " +
				"allow with evictable.jobPods, or give the Job a podFailurePolicy that ignores DisruptionTarget"},
		{name: "a pod of a CronJob's Job", job: cronJob(), pod: ct.Pod("batch", "report-29150000-q8d4z").OwnedBy("Job", "report-29150000"),
			skip: "protected: pod of Job batch/report-29150000 (of CronJob batch/report): evicting it counts as a failed attempt against the Job's backoffLimit and loses its work; " +
				"allow with evictable.jobPods, or give the Job a podFailurePolicy that ignores DisruptionTarget"},
		{name: "a pod of a Job the snapshot lacks", pod: ct.Pod("batch", "pi-x7k2p").OwnedBy("Job", "pi"),
			skip: "protected: pod of Job batch/pi, which the snapshot does not hold: evicting it may count as a failed attempt against the Job's backoffLimit and lose its work; allow with evictable.jobPods"},
		{name: "allowed by the policy", policy: "evictable: {jobPods: true}", job: ct.Job("batch", "pi"), pod: ct.Pod("batch", "pi-x7k2p").OwnedBy("Job", "pi")},
		{name: "allowed for the namespace", policy: "overrides:\n- namespaces: [batch]\n  evictable: {jobPods: true}", job: ct.Job("batch", "pi"),
			pod: ct.Pod("batch", "pi-x7k2p").OwnedBy("Job", "pi")},
		{name: "a Job whose podFailurePolicy ignores disruptions", job: ct.Job("batch", "pi", ignoreDisruptions),
			pod: ct.Pod("batch", "pi-x7k2p").OwnedBy("Job", "pi")},
		{name: "opted in past the protection", job: ct.Job("batch", "pi"), pod: ct.Pod("batch", "pi-x7k2p").OwnedBy("Job", "pi").Annotate("rebalancer.dev/evict", "true")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.pod.On("n1").Requests("100m", "64Mi").Obj()
			objs := []any{ct.Node("n1"), ct.Node("n2"), p}
			if tt.job != nil {
				objs = append(objs, tt.job)
			}
			snap := ct.Snapshot(t, objs...)
			plan := propose(t, loadPolicy(t, tt.policy), snap, nil, p.Namespace+"/"+p.Name)
			checkProtection(t, plan, &p, tt.skip)
		})
	}
}

// The cluster autoscaler's and Karpenter's annotations keep a pod in place
// unless the policy allows it.
func TestAutoscalerAnnotations(t *testing.T) {
	web := func() *ct.PodBuilder {
		return ct.Pod("shop", "web-7d9f-x2x4b").On("n1").Requests("100m", "64Mi").Deployment("web")
	}
	tests := []struct {
		name   string
		policy string
		pod    *ct.PodBuilder
		skip   string
	}{
		{name: "cluster autoscaler: safe-to-evict false", pod: web().Annotate("cluster-autoscaler.kubernetes.io/safe-to-evict", "false"),
			skip: `protected: annotated cluster-autoscaler.kubernetes.io/safe-to-evict: "false" for the cluster autoscaler; allow with evictable.doNotDisruptPods`},
		{name: "cluster autoscaler: safe-to-evict true protects nothing", pod: web().Annotate("cluster-autoscaler.kubernetes.io/safe-to-evict", "true")},
		{name: "Karpenter: do-not-disrupt", pod: web().Annotate("karpenter.sh/do-not-disrupt", "true"),
			skip: `protected: annotated karpenter.sh/do-not-disrupt: "true" for Karpenter; allow with evictable.doNotDisruptPods`},
		{name: "Karpenter: do-not-disrupt false protects nothing", pod: web().Annotate("karpenter.sh/do-not-disrupt", "false")},
		{name: "Karpenter: do-not-disrupt for 2h, started 1h ago", pod: web().Annotate("karpenter.sh/do-not-disrupt", "2h").Edit(startedAgo(time.Hour)),
			skip: `protected: annotated karpenter.sh/do-not-disrupt: "2h" for Karpenter, which protects it until 2026-11-20T13:00:00Z (2h0m0s after it started); allow with evictable.doNotDisruptPods`},
		{name: "Karpenter: do-not-disrupt for 30m, started 1h ago", pod: web().Annotate("karpenter.sh/do-not-disrupt", "30m").Edit(startedAgo(time.Hour))},
		{name: "Karpenter: do-not-disrupt for 1h, started exactly 1h ago", pod: web().Annotate("karpenter.sh/do-not-disrupt", "1h").Edit(startedAgo(time.Hour))},
		{name: "Karpenter: do-not-disrupt for 5m, not started", pod: web().Annotate("karpenter.sh/do-not-disrupt", "5m"),
			skip: `protected: annotated karpenter.sh/do-not-disrupt: "5m" for Karpenter, which protects it for 5m0s from its start, and it has not started; allow with evictable.doNotDisruptPods`},
		{name: "Karpenter: a value that is no duration protects nothing", pod: web().Annotate("karpenter.sh/do-not-disrupt", "forever").Edit(startedAgo(time.Hour))},
		{name: "Karpenter: a negative duration protects nothing", pod: web().Annotate("karpenter.sh/do-not-disrupt", "-5m").Edit(startedAgo(time.Hour))},
		{name: "allowed by the policy", policy: "evictable: {doNotDisruptPods: true}",
			pod: web().Annotate("cluster-autoscaler.kubernetes.io/safe-to-evict", "false").Annotate("karpenter.sh/do-not-disrupt", "true")},
		{name: "opted in past the protection", pod: web().Annotate("karpenter.sh/do-not-disrupt", "true").Annotate("rebalancer.dev/evict", "true")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.pod.Obj()
			snap := ct.Snapshot(t, ct.Node("n1"), ct.Node("n2"), ct.DeploymentReplicaSet("shop", "web"), p)
			plan := propose(t, loadPolicy(t, tt.policy), snap, nil, p.Namespace+"/"+p.Name)
			checkProtection(t, plan, &p, tt.skip)
		})
	}
}

// startedAgo sets the pod's status.startTime d before the snapshot's time.
func startedAgo(d time.Duration) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		at := metav1.NewTime(ct.Now.Add(-d))
		p.Status.StartTime = &at
	}
}

// A pod of a group that a gang scheduler places all at once is never
// evicted alone, whatever the policy or the pod's own annotation says.
func TestGangPods(t *testing.T) {
	web := func() *ct.PodBuilder {
		return ct.Pod("shop", "web-7d9f-x2x4b").On("n1").Requests("100m", "64Mi").Deployment("web")
	}
	group := "training"
	tests := []struct {
		name string
		pod  *ct.PodBuilder
		skip string
	}{
		{name: "the Workload API's scheduling group", pod: web().Edit(func(p *corev1.Pod) {
			p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: &group}
		}), skip: `protected: member of PodGroup training (spec.schedulingGroup), whose pods are scheduled together: a pod of a group is never evicted alone`},
		{name: "coscheduling's label", pod: web().Label("scheduling.x-k8s.io/pod-group", "training"),
			skip: `protected: member of PodGroup training (label scheduling.x-k8s.io/pod-group), whose pods are scheduled together: a pod of a group is never evicted alone`},
		{name: "coscheduling's older label", pod: web().Label("pod-group.scheduling.sigs.k8s.io", "training"),
			skip: `protected: member of PodGroup training (label pod-group.scheduling.sigs.k8s.io), whose pods are scheduled together: a pod of a group is never evicted alone`},
		{name: "Volcano's annotation", pod: web().Annotate("scheduling.k8s.io/group-name", "training"),
			skip: `protected: member of PodGroup training (annotation scheduling.k8s.io/group-name), whose pods are scheduled together: a pod of a group is never evicted alone`},
		{name: "opted in: still a member of its group", pod: web().Label("scheduling.x-k8s.io/pod-group", "training").Annotate("rebalancer.dev/evict", "true"),
			skip: `protected: member of PodGroup training (label scheduling.x-k8s.io/pod-group), whose pods are scheduled together: a pod of a group is never evicted alone`},
		{name: "no group", pod: web()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.pod.Obj()
			snap := ct.Snapshot(t, ct.Node("n1"), ct.Node("n2"), ct.DeploymentReplicaSet("shop", "web"), p)
			plan := propose(t, loadPolicy(t, ""), snap, nil, p.Namespace+"/"+p.Name)
			checkProtection(t, plan, &p, tt.skip)
		})
	}
}

// checkProtection checks that the pod moved to n2 when skip is "", or was
// skipped for skip.
func checkProtection(t *testing.T, plan *Plan, p *corev1.Pod, skip string) {
	t.Helper()
	if skip == "" {
		if len(plan.Moves) != 1 || plan.Moves[0].To != "n2" {
			t.Errorf("want the pod moved to n2; plan %+v, skipped %s", plan.Moves, skipped(plan))
		}
		return
	}
	want := p.Namespace + "/" + p.Name + ": " + skip
	if len(plan.Moves) != 0 || skipped(plan) != want {
		t.Errorf("skipped:\n%s\nwant:\n%s", skipped(plan), want)
	}
}

// The built-in policy moves none of the pods that Jobs, the cluster
// autoscaler or Karpenter need left in place, though it would move every one
// of them were they ordinary replicas: node-a is 75% busy with two replicas
// of each workload, node-b and node-c are empty.
func TestDefaultPolicyLeavesJobAndDoNotDisruptPods(t *testing.T) {
	objs := []any{ct.Node("node-a").CPU("4"), ct.Node("node-b").CPU("4"), ct.Node("node-c").CPU("4"),
		ct.Job("batch", "pi"), ct.DeploymentReplicaSet("shop", "web"), ct.DeploymentReplicaSet("shop", "api")}
	for _, n := range []string{"a", "b"} {
		objs = append(objs,
			ct.Pod("batch", "pi-"+n).On("node-a").Requests("500m", "").OwnedBy("Job", "pi"),
			ct.Pod("shop", "web-"+n).On("node-a").Requests("500m", "").Deployment("web").Annotate("cluster-autoscaler.kubernetes.io/safe-to-evict", "false"),
			ct.Pod("shop", "api-"+n).On("node-a").Requests("500m", "").Deployment("api").Annotate("karpenter.sh/do-not-disrupt", "true"))
	}
	snap := ct.Snapshot(t, objs...)
	tests := []struct {
		name  string
		pol   *policy.Policy
		moves bool
	}{
		{name: "the built-in policy", pol: policy.Default()},
		{name: "the same, allowed to move them", pol: loadPolicy(t, "evictable: {jobPods: true, doNotDisruptPods: true}\n"+
			"strategies:\n  RemoveDuplicates: {}\n  LowNodeUtilization: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}\n"), moves: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := (&Planner{Policy: tt.pol, Placer: newEngine(t)}).Plan(snap)
			if got := len(plan.Moves) > 0; got != tt.moves {
				t.Errorf("moves %s, want moves: %v; skipped:\n%s", movedPods(plan), tt.moves, skipped(plan))
			}
			for _, k := range plan.Skipped {
				if !tt.moves && k.Category != Protected {
					t.Errorf("%s skipped as %s (%s), want protected", k.Pod, k.Category, k.Reason)
				}
			}
		})
	}
}

// evictable.minReplicas keeps the pods of small workloads in place. The
// count is what the controller's spec asks for, not how many of its pods the
// snapshot holds.
func TestMinReplicas(t *testing.T) {
	web := func() *ct.PodBuilder { return ct.Pod("shop", "web-rs-x2x4b").Deployment("web") }
	db := func() *ct.PodBuilder { return ct.Pod("shop", "postgres-0").OwnedBy("StatefulSet", "postgres") }
	tests := []struct {
		name   string
		policy string
		owners []any
		pod    *ct.PodBuilder
		others int // more running pods of the same owner, on n1
		skip   string
	}{
		{name: "a Deployment of one replica", policy: "evictable: {minReplicas: 2}",
			owners: []any{ct.ScaledReplicaSet("shop", "web", 1)}, pod: web(),
			skip: "protected: ReplicaSet shop/web-rs (of Deployment shop/web) asks for 1 replica, fewer than evictable.minReplicas (2); allow with a lower evictable.minReplicas"},
		{name: "a ReplicaSet without spec.replicas has the API server's default, 1", policy: "evictable: {minReplicas: 2}",
			owners: []any{ct.DeploymentReplicaSet("shop", "web")}, pod: web(),
			skip: "protected: ReplicaSet shop/web-rs (of Deployment shop/web) asks for 1 replica, fewer than evictable.minReplicas (2); allow with a lower evictable.minReplicas"},
		{name: "a Deployment of three replicas, one of them in the snapshot", policy: "evictable: {minReplicas: 2}",
			owners: []any{ct.ScaledReplicaSet("shop", "web", 3)}, pod: web()},
		{name: "a Deployment scaled down to one that still runs three pods", policy: "evictable: {minReplicas: 2}",
			owners: []any{ct.ScaledReplicaSet("shop", "web", 1)}, pod: web(), others: 2,
			skip: "protected: ReplicaSet shop/web-rs (of Deployment shop/web) asks for 1 replica, fewer than evictable.minReplicas (2); allow with a lower evictable.minReplicas"},
		{name: "a StatefulSet of one replica", policy: "evictable: {minReplicas: 2}",
			owners: []any{ct.StatefulSet("shop", "postgres", 1)}, pod: db(),
			skip: "protected: StatefulSet shop/postgres asks for 1 replica, fewer than evictable.minReplicas (2); allow with a lower evictable.minReplicas"},
		{name: "a StatefulSet of three replicas", policy: "evictable: {minReplicas: 3}",
			owners: []any{ct.StatefulSet("shop", "postgres", 3)}, pod: db()},
		{name: "a StatefulSet the snapshot lacks", policy: "evictable: {minReplicas: 2}", pod: db(),
			skip: "protected: pod of StatefulSet shop/postgres, which the snapshot does not hold: its replica count is unknown, " +
				"so evictable.minReplicas (2) keeps it; allow with a lower evictable.minReplicas for its namespace"},
		{name: "a controller whose replicas rebalancer does not read", policy: "evictable: {minReplicas: 2}",
			pod: ct.Pod("shop", "worker-x7k2p").OwnedBy("CloneSet", "worker"),
			skip: "protected: pod of CloneSet shop/worker, whose replica count rebalancer does not read (it reads ReplicaSets, StatefulSets and Jobs): " +
				"evictable.minReplicas (2) keeps it; allow with a lower evictable.minReplicas for its namespace"},
		{name: "minReplicas 1 keeps none, as in the descheduler", policy: "evictable: {minReplicas: 1}", pod: db()},
		{name: "by default the count does not matter", owners: []any{ct.StatefulSet("shop", "postgres", 1)}, pod: db()},
		{name: "lowered for the namespace", policy: "evictable: {minReplicas: 2}\noverrides:\n- namespaces: [shop]\n  evictable: {minReplicas: 0}",
			owners: []any{ct.StatefulSet("shop", "postgres", 1)}, pod: db()},
		{name: "raised for another namespace", policy: "overrides:\n- namespaces: [payments]\n  evictable: {minReplicas: 2}",
			owners: []any{ct.StatefulSet("shop", "postgres", 1)}, pod: db()},
		{name: "opted in past the protection", policy: "evictable: {minReplicas: 2}",
			owners: []any{ct.StatefulSet("shop", "postgres", 1)}, pod: db().Annotate("rebalancer.dev/evict", "true")},
		{name: "a failed pod, which serves nothing, of a StatefulSet of one", policy: "evictable: {minReplicas: 2}",
			owners: []any{ct.StatefulSet("shop", "postgres", 1)}, pod: db().Phase(corev1.PodFailed)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.pod.On("n1").Requests("100m", "64Mi").Obj()
			objs := append([]any{ct.Node("n1"), ct.Node("n2"), p}, tt.owners...)
			for i := range tt.others {
				o := *p.DeepCopy()
				o.Name = fmt.Sprintf("%s-%d", p.Name, i)
				objs = append(objs, o)
			}
			snap := ct.Snapshot(t, objs...)
			plan := propose(t, loadPolicy(t, tt.policy), snap, nil, p.Namespace+"/"+p.Name)
			if p.Status.Phase == corev1.PodFailed {
				// Nothing is placed for a finished pod: it is only removed.
				if len(plan.Moves) != 1 || plan.Moves[0].To != "" {
					t.Errorf("want the failed pod removed; plan %+v, skipped %s", plan.Moves, skipped(plan))
				}
				return
			}
			checkProtection(t, plan, &p, tt.skip)
		})
	}
}

// evictable.requirePDB moves only the pods a PodDisruptionBudget covers, so
// that every eviction is one the application's owner has budgeted for.
func TestRequirePDB(t *testing.T) {
	const skip = "protected: no PodDisruptionBudget covers it, and evictable.requirePDB moves only pods that one covers; " +
		"add a PodDisruptionBudget that selects it, or allow with evictable.requirePDB: false"
	tests := []struct {
		name   string
		policy string
		pdbs   []any
		skip   string
	}{
		{name: "no budget", policy: "evictable: {requirePDB: true}", skip: skip},
		{name: "a budget that selects the pod", policy: "evictable: {requirePDB: true}", pdbs: []any{ct.PDB("shop", "web", 1)}},
		{name: "a budget over other pods", policy: "evictable: {requirePDB: true}", pdbs: []any{ct.PDB("shop", "api", 1)}, skip: skip},
		{name: "a budget in another namespace", policy: "evictable: {requirePDB: true}", pdbs: []any{ct.PDB("blog", "web", 1)}, skip: skip},
		{name: "not required by default", pdbs: nil},
		{name: "required for the namespace", policy: "overrides:\n- namespaces: [shop]\n  evictable: {requirePDB: true}", skip: skip},
		{name: "required for another namespace", policy: "overrides:\n- namespaces: [blog]\n  evictable: {requirePDB: true}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ct.Pod("shop", "web-rs-x2x4b").On("n1").Requests("100m", "64Mi").Deployment("web").Obj()
			objs := append([]any{ct.Node("n1"), ct.Node("n2"), ct.DeploymentReplicaSet("shop", "web"), p}, tt.pdbs...)
			snap := ct.Snapshot(t, objs...)
			plan := propose(t, loadPolicy(t, tt.policy), snap, nil, p.Namespace+"/"+p.Name)
			checkProtection(t, plan, &p, tt.skip)
		})
	}
}

// A pod with DRA resource claims stays unless the policy allows it: the plan
// does not simulate devices, so it cannot know that its target has them.
func TestResourceClaimPods(t *testing.T) {
	template := "gpu-claim"
	withClaim := func(p *corev1.Pod) {
		p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: &template}}
	}
	tests := []struct {
		name   string
		policy string
		pod    *ct.PodBuilder
		skip   string
	}{
		{name: "a pod with a resource claim", pod: ct.Pod("ml", "train-rs-x2x4b").Edit(withClaim),
			skip: "protected: uses dynamic resource allocation (spec.resourceClaims), whose devices the plan does not simulate: " +
				"no node can be known to take it; allow with evictable.resourceClaims"},
		{name: "a pod without", pod: ct.Pod("ml", "train-rs-x2x4b")},
		{name: "allowed by the policy", policy: "evictable: {resourceClaims: true}", pod: ct.Pod("ml", "train-rs-x2x4b").Edit(withClaim)},
		{name: "allowed for the namespace", policy: "overrides:\n- namespaces: [ml]\n  evictable: {resourceClaims: true}",
			pod: ct.Pod("ml", "train-rs-x2x4b").Edit(withClaim)},
		{name: "opted in past the protection", pod: ct.Pod("ml", "train-rs-x2x4b").Edit(withClaim).Annotate("rebalancer.dev/evict", "true")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.pod.On("n1").Requests("100m", "64Mi").Deployment("train").Obj()
			snap := ct.Snapshot(t, ct.Node("n1"), ct.Node("n2"), ct.DeploymentReplicaSet("ml", "train"), p)
			plan := propose(t, loadPolicy(t, tt.policy), snap, nil, p.Namespace+"/"+p.Name)
			checkProtection(t, plan, &p, tt.skip)
		})
	}
}

// evictable.namespaceSelector limits rebalancing to the namespaces whose
// labels it selects, as the descheduler's namespaceLabelSelector does; like
// the policy's namespaces, it is not a protection a pod can opt past.
func TestNamespaceSelector(t *testing.T) {
	const optedOut = "namespaceSelector: {matchExpressions: [{key: rebalance, operator: NotIn, values: [\"off\"]}]}"
	tests := []struct {
		name      string
		policy    string
		namespace any // the namespace object, or nil when the snapshot lacks it
		annotate  bool
		skip      string
	}{
		{name: "a namespace the selector selects", policy: "evictable: {" + optedOut + "}", namespace: ct.Namespace("shop", map[string]string{"rebalance": "on"})},
		{name: "a namespace it does not select", policy: "evictable: {" + optedOut + "}", namespace: ct.Namespace("shop", map[string]string{"rebalance": "off"}),
			skip: "excluded: namespace shop is not selected by evictable.namespaceSelector"},
		{name: "the pod's annotation does not pass it", policy: "evictable: {" + optedOut + "}", namespace: ct.Namespace("shop", map[string]string{"rebalance": "off"}),
			annotate: true, skip: "excluded: namespace shop is not selected by evictable.namespaceSelector"},
		{name: "by the name label every namespace has", policy: "evictable: {namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: shop}}}"},
		{name: "a namespace the snapshot lacks has only its name label", policy: "evictable: {namespaceSelector: {matchLabels: {team: web}}}",
			skip: "excluded: namespace shop is not selected by evictable.namespaceSelector"},
		{name: "it applies in namespaces an override tunes", policy: "evictable: {" + optedOut + "}\noverrides:\n- namespaces: [shop]\n  evictable: {minPodAge: 0s}",
			namespace: ct.Namespace("shop", map[string]string{"rebalance": "off"}), skip: "excluded: namespace shop is not selected by evictable.namespaceSelector"},
		{name: "none selects every namespace", namespace: ct.Namespace("shop", map[string]string{"rebalance": "off"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := ct.Pod("shop", "web-rs-x2x4b").On("n1").Requests("100m", "64Mi").Deployment("web")
			if tt.annotate {
				b.Annotate("rebalancer.dev/evict", "true")
			}
			p := b.Obj()
			objs := []any{ct.Node("n1"), ct.Node("n2"), ct.DeploymentReplicaSet("shop", "web"), p}
			if tt.namespace != nil {
				objs = append(objs, tt.namespace)
			}
			snap := ct.Snapshot(t, objs...)
			plan := propose(t, loadPolicy(t, tt.policy), snap, nil, p.Namespace+"/"+p.Name)
			checkProtection(t, plan, &p, tt.skip)
		})
	}
}
