package schedulerd

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/preemption"
)

// preempt runs DefaultPreemption for a pod that fits nowhere, as
// kube-scheduler's PostFilter does: when removing pods of lower priority
// from a node would make it fit, the pod is nominated to that node (held
// there in the cache at once, so that pods of lower priority do not take
// what is being freed), pods of lower priority nominated there lose their
// nomination, and the victims get the DisruptionTarget condition and are
// deleted, from a goroutine of their own so that the next pod is decided
// meanwhile. It returns the FailedScheduling message and the nominated
// node, empty when preemption cannot help.
func (l *Live) preempt(ctx context.Context, snap *cluster.Snapshot, p *cluster.Pod, failed engine.Result) (message, node string) {
	if failed.NominatedNode != "" {
		// An out-of-tree PostFilter plugin, earlier in the profile than
		// DefaultPreemption, nominated a node: kube-scheduler stops there.
		l.cache.nominate(p.Pod, failed.NominatedNode)
		return failed.Message, failed.NominatedNode
	}
	pre := preemption.Decide(l.Engine, snap, p, failed)
	message = pre.Message
	if message == "" {
		message = failed.Message
	}
	if pre.Node == "" {
		if pre.NotEligible == "" && pre.Error == "" && p.Status.NominatedNodeName != "" && l.cache.heldFor(p.UID) == "" {
			// Preemption looked and found no node: a nomination from an
			// earlier attempt holds nothing any more, and kube-scheduler
			// clears it. A pod not allowed to preempt, or an extender's
			// error, leaves it as it was.
			l.cache.nominate(p.Pod, "")
			l.patchStatus(ctx, p.Pod, map[string]any{"nominatedNodeName": nil}, "clearing the nominated node")
		}
		return message, ""
	}
	if v, earlier := l.cache.replaced(p.UID, pre.Victims); v != nil {
		// The room an earlier preemption freed went to a replacement of
		// its victim: deleting that too would go round in circles. The
		// pod keeps its nomination and binds when the room frees.
		why := fmt.Sprintf("not preempting %s on node %s again: it replaces %s, which was preempted for this pod.", v.Key, pre.Node, earlier)
		klog.InfoS("Not preempting a replacement of an earlier victim", "pod", klog.KObj(p), "node", pre.Node, "victim", klog.KObj(v), "replaces", earlier)
		return failed.Message + " preemption: " + why, ""
	}
	// The victims as the watch showed them, before the cache marks them.
	victims := make([]*corev1.Pod, len(pre.Victims))
	for i, v := range pre.Victims {
		victims[i] = v.Pod
	}
	l.cache.nominate(p.Pod, pre.Node)
	l.cache.markVictims(p.UID, pre.Victims, time.Now())
	var lose []*corev1.Pod
	for _, q := range pre.LoseNomination {
		lose = append(lose, q.Pod)
		l.cache.nominate(q.Pod, "")
	}
	klog.InfoS("Preempting", "pod", klog.KObj(p), "node", pre.Node, "victims", len(victims))
	preemptor := p.Pod
	l.bindings.Add(1)
	go func() {
		defer l.bindings.Done()
		for _, v := range victims {
			l.evictVictim(ctx, v, preemptor, pre.Node)
		}
		for _, q := range lose {
			l.patchStatus(ctx, q, map[string]any{"nominatedNodeName": nil}, "clearing the nominated node")
		}
	}()
	return message, pre.Node
}

// evictVictim does to one victim what kube-scheduler does: the
// DisruptionTarget condition says why the pod goes, then the pod is
// deleted (this UID only: a pod re-created under the name is not the
// victim), and a Preempted event names the preemptor.
func (l *Live) evictVictim(ctx context.Context, victim, preemptor *corev1.Pod, node string) {
	l.patchStatus(ctx, victim, map[string]any{"conditions": []corev1.PodCondition{{
		Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: corev1.PodReasonPreemptionByScheduler,
		Message: fmt.Sprintf("%s: preempting to accommodate a higher priority pod", l.SchedulerName), LastTransitionTime: metav1.Now(),
	}}}, "marking a victim of preemption")
	uid := victim.UID
	err := l.Client.CoreV1().Pods(victim.Namespace).Delete(ctx, victim.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		klog.ErrorS(err, "Could not delete a victim of preemption", "pod", klog.KObj(victim), "preemptor", klog.KObj(preemptor))
		l.cache.push(change{victimKept: victim.UID})
		return
	}
	l.recorder.Eventf(victim, corev1.EventTypeNormal, "Preempted", "Preempted by pod %v on node %v", preemptor.UID, node)
}

// patchStatus patches fields of a pod's status.
func (l *Live) patchStatus(ctx context.Context, pod *corev1.Pod, status map[string]any, doing string) {
	patch, err := json.Marshal(map[string]any{"status": status})
	if err == nil {
		_, err = l.Client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	}
	if err != nil && !apierrors.IsNotFound(err) {
		klog.ErrorS(err, "Patching the pod's status failed", "pod", klog.KObj(pod), "while", doing)
	}
}
