package cluster

import (
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// JobOf returns the Job that controls the pod. job is nil when the pod has
// no Job controller (owned is false) or when the snapshot does not hold the
// Job (owned is true).
func (s *Snapshot) JobOf(p *Pod) (job *batchv1.Job, owned bool) {
	if !p.ofJob {
		return nil, false
	}
	return s.jobs[p.Namespace+"/"+p.Controller().Name], true
}

func isBatchGroup(apiVersion string) bool {
	return apiVersion == "batch/v1" || apiVersion == "batch/v1beta1" || apiVersion == ""
}

// Exit codes of a container that the kubelet stopped: 128 plus SIGTERM's
// number when it exits on the signal, plus SIGKILL's when the grace period
// runs out.
var stoppedExitCodes = []int32{128 + 15, 128 + 9}

// JobIgnoresDisruptions reports whether evicting an unfinished pod of the
// Job costs it nothing: its podFailurePolicy ignores a pod that fails with
// the DisruptionTarget condition the Eviction API sets, so the Job
// controller neither counts it against backoffLimit nor fails the Job, and
// creates a replacement.
//
// The controller applies the first rule that matches the failed pod. A rule
// on DisruptionTarget decides; a rule before it on exit codes decides instead
// when the codes it matches include those of a container stopped by the
// kubelet, which is how an evicted pod's containers end unless they exit 0
// on SIGTERM.
func JobIgnoresDisruptions(job *batchv1.Job) bool {
	pfp := job.Spec.PodFailurePolicy
	if pfp == nil {
		return false
	}
	for _, r := range pfp.Rules {
		if e := r.OnExitCodes; e != nil && r.Action != batchv1.PodFailurePolicyActionIgnore {
			for _, code := range stoppedExitCodes {
				if matchesExitCode(e, code) {
					return false
				}
			}
		}
		for _, c := range r.OnPodConditions {
			status := c.Status
			if status == "" {
				status = corev1.ConditionTrue // the API server's default
			}
			if c.Type == corev1.DisruptionTarget && status == corev1.ConditionTrue {
				return r.Action == batchv1.PodFailurePolicyActionIgnore
			}
		}
	}
	return false
}

func matchesExitCode(e *batchv1.PodFailurePolicyOnExitCodesRequirement, code int32) bool {
	in := slices.Contains(e.Values, code)
	if e.Operator == batchv1.PodFailurePolicyOnExitCodesOpNotIn {
		return !in
	}
	return in
}
