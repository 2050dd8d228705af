package cluster_test

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// The podFailurePolicy examples of the Kubernetes docs ("Handling retriable
// and non-retriable pod failures with Pod failure policy"), and variants.
func TestJobIgnoresDisruptions(t *testing.T) {
	ignoreDisruptions := batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionIgnore,
		OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}}}
	onExitCodes := func(action batchv1.PodFailurePolicyAction, op batchv1.PodFailurePolicyOnExitCodesOperator, codes ...int32) batchv1.PodFailurePolicyRule {
		return batchv1.PodFailurePolicyRule{Action: action,
			OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{ContainerName: new("main"), Operator: op, Values: codes}}
	}
	tests := []struct {
		name  string
		rules []batchv1.PodFailurePolicyRule
		want  bool
	}{
		{name: "no podFailurePolicy: every failure counts against backoffLimit", want: false},
		{name: "the docs' example: fail the Job on exit code 42, ignore disruptions",
			rules: []batchv1.PodFailurePolicyRule{onExitCodes(batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyOnExitCodesOpIn, 42), ignoreDisruptions},
			want:  true},
		{name: "ignore disruptions only", rules: []batchv1.PodFailurePolicyRule{ignoreDisruptions}, want: true},
		{name: "DisruptionTarget with status True spelled out",
			rules: []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionIgnore,
				OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}}},
			want: true},
		{name: "disruptions counted, not ignored",
			rules: []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionCount,
				OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}}}},
			want: false},
		{name: "a rule on another condition ignores nothing an eviction causes",
			rules: []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionIgnore,
				OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.PodConditionType("ConfigIssue")}}}},
			want: false},
		{name: "failing the Job on any non-zero exit comes first: a container stopped by SIGTERM exits 143",
			rules: []batchv1.PodFailurePolicyRule{onExitCodes(batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyOnExitCodesOpNotIn, 0), ignoreDisruptions},
			want:  false},
		{name: "failing the Job on SIGKILL's exit code comes first",
			rules: []batchv1.PodFailurePolicyRule{onExitCodes(batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyOnExitCodesOpIn, 137), ignoreDisruptions},
			want:  false},
		{name: "ignoring exit codes first costs nothing either",
			rules: []batchv1.PodFailurePolicyRule{onExitCodes(batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyOnExitCodesOpNotIn, 0), ignoreDisruptions},
			want:  true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := ct.Job("batch", "pi", tt.rules...)
			if got := cluster.JobIgnoresDisruptions(&job); got != tt.want {
				t.Errorf("JobIgnoresDisruptions() = %v, want %v", got, tt.want)
			}
		})
	}
}

// A pod's Job is found by its controller reference; a Job missing from the
// snapshot still says that the pod has one.
func TestJobOf(t *testing.T) {
	snap := ct.Snapshot(t, ct.Node("n1"), ct.Job("batch", "pi"),
		ct.Pod("batch", "pi-x").On("n1").OwnedBy("Job", "pi"),
		ct.Pod("batch", "gone-x").On("n1").OwnedBy("Job", "gone"),
		ct.Pod("batch", "web-x").On("n1").Deployment("web"))
	tests := []struct {
		pod   string
		job   string
		owned bool
	}{
		{pod: "batch/pi-x", job: "pi", owned: true},
		{pod: "batch/gone-x", owned: true},
		{pod: "batch/web-x"},
	}
	for _, tt := range tests {
		job, owned := snap.JobOf(snap.Pod(tt.pod))
		name := ""
		if job != nil {
			name = job.Name
		}
		if name != tt.job || owned != tt.owned {
			t.Errorf("JobOf(%s) = %q, %v; want %q, %v", tt.pod, name, owned, tt.job, tt.owned)
		}
	}
}
