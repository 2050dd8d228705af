package planner

import (
	"testing"

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
			plan := (&Planner{Policy: tt.pol, Placer: engine(t)}).Plan(snap)
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
