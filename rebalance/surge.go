package rebalance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/planner"
)

// A move made by surge (evictable.makeBeforeBreak) goes:
//
//  1. record the surge in the state ConfigMap, and the intent that steers
//     the new pod to the planned node;
//  2. raise the Deployment's spec.replicas by one, through its scale
//     subresource, so that the ReplicaSet controller creates the new pod;
//  3. wait until it is Ready, at most --step-timeout;
//  4. give the old pod the lowest pod-deletion-cost and lower spec.replicas
//     again: the ReplicaSet controller removes the pod of the lowest cost
//     among Ready ones, which is the old pod;
//  5. forget the record.
//
// Anything that goes wrong after step 1 undoes it (undoSurge), and a run
// killed half-way leaves the record for the next run (recoverSurges).

// lowestDeletionCost makes a pod the first its ReplicaSet removes among
// Ready pods when it scales down.
var lowestDeletionCost = strconv.Itoa(math.MinInt32)

// handoffDelay is how long a surge waits between recording its intent and
// creating the pod: the scheduler reads the recorded intents again when
// its last read is older than a second. surgePoll is how often a surge
// looks at its pods. Variables for the tests.
var (
	handoffDelay = 2 * time.Second
	surgePoll    = settlePoll
)

// surgeGone bounds the wait for the ReplicaSet to remove the old pod once
// the Deployment is back at its replicas.
const surgeGone = time.Minute

// surgeSettle bounds the wait for a Deployment to be settled before a
// surge of it starts.
const surgeSettle = 30 * time.Second

// surge makes one move by surge and says how it went.
func (r *Runner) surge(ctx context.Context, snap *cluster.Snapshot, m planner.Move) evictor.Outcome {
	out := func(res evictor.Result, format string, args ...any) evictor.Outcome {
		return evictor.Outcome{Move: m, Result: res, Message: fmt.Sprintf(format, args...)}
	}
	if r.cfg.History == nil {
		return out(evictor.RolledBack, "not started: a surge is recorded in the state ConfigMap, and this run keeps none")
	}
	p := snap.Pod(m.Pod)
	if p == nil || p.Controller() == nil {
		return out(evictor.Gone, "the pod is not in the snapshot")
	}
	s, why, err := r.startingSurge(ctx, p, m)
	switch {
	case errors.Is(err, errSurgePodGone):
		return out(evictor.Gone, "%v", err)
	case err != nil:
		return out(evictor.Failed, "surge not started: %v", err)
	case why != "":
		return out(evictor.RolledBack, "surge not started: %s", why)
	}
	if err := r.cfg.History.RecordSurge(ctx, s); err != nil {
		return out(evictor.Failed, "surge not started: recording it: %v", err)
	}
	intent := cluster.Eviction{Pod: m.Pod, UID: m.UID, Workload: p.Workload, From: m.From, To: m.To, Strategy: m.Strategy, At: time.Now(), Surge: true}
	if err := r.announce(ctx, []cluster.Eviction{intent}); err != nil {
		return r.undone(ctx, m, s, nil, "surge not started: recording its intent: "+err.Error())
	}
	select {
	case <-ctx.Done():
		return r.undone(ctx, m, s, &intent, "surge not started: "+stopReason(ctx))
	case <-time.After(handoffDelay):
	}
	klog.InfoS("Surge: one replica more until the new pod is Ready", "pod", m.Pod, "deployment", s.Deployment,
		"replicas", s.Replicas, "to", m.To)
	if err := r.scaleSurge(ctx, s, s.Replicas, s.Replicas+1); err != nil {
		return r.undone(ctx, m, s, &intent, "surge not started: raising spec.replicas: "+err.Error())
	}
	ready, why := r.waitSurgeReady(ctx, s)
	if ready == nil {
		return r.undone(ctx, m, s, &intent, why)
	}
	if ready.Spec.NodeName == m.From {
		// Nothing steered it (no extender, another scheduler): finishing
		// would restart the pod where it was, for nothing.
		return r.undone(ctx, m, s, &intent, fmt.Sprintf("the new pod %s was placed on %s, the node the pod leaves, not on %s as planned", ready.Name, m.From, m.To))
	}
	if err := r.finishSurge(ctx, s); err != nil {
		return r.undone(ctx, m, s, &intent, "finishing: "+err.Error())
	}
	msg := fmt.Sprintf("replacement %s Ready on %s before the pod went", ready.Name, ready.Spec.NodeName)
	if ready.Spec.NodeName != m.To {
		msg += fmt.Sprintf(" (planned: %s)", m.To)
	}
	if gone := r.waitSurgeGone(ctx, s); gone != "" {
		msg += "; " + gone
	}
	if err := r.cfg.History.ForgetSurge(context.WithoutCancel(ctx), s); err != nil {
		klog.ErrorS(err, "The surge is done but its record stays; the next run finds it done", "pod", m.Pod)
	}
	klog.InfoS("Surge done", "pod", m.Pod, "replacement", ready.Name, "node", ready.Spec.NodeName)
	return out(evictor.Surged, "%s", msg)
}

// errSurgePodGone: the pod a surge would move is gone.
var errSurgePodGone = errors.New("the pod no longer runs under the planned UID")

// startingSurge reads the Deployment and the pod's ReplicaSet afresh and
// returns the record of the surge to make, or why it cannot start now.
func (r *Runner) startingSurge(ctx context.Context, p *cluster.Pod, m planner.Move) (cluster.Surge, string, error) {
	pods, err := r.cfg.Client.CoreV1().Pods(p.Namespace).List(ctx, byName(p.Name))
	if err != nil {
		return cluster.Surge{}, "", err
	}
	if len(pods.Items) == 0 || pods.Items[0].UID != m.UID || pods.Items[0].DeletionTimestamp != nil {
		return cluster.Surge{}, "", errSurgePodGone
	}
	pod := &pods.Items[0]
	d, why, err := r.settledDeployment(ctx, p.Namespace, p.Workload.Name)
	if d == nil || err != nil {
		return cluster.Surge{}, why, err
	}
	rs := p.Controller()
	mine, err := r.replicaSetPods(ctx, p.Namespace, rs.Name)
	if err != nil {
		return cluster.Surge{}, "", err
	}
	s := cluster.Surge{Deployment: p.Namespace + "/" + d.Name, DeploymentUID: d.UID, Replicas: *d.Spec.Replicas, Pod: m.Pod, UID: m.UID,
		From: m.From, To: m.To, Strategy: m.Strategy, ReplicaSet: rs.Name, At: time.Now()}
	for _, q := range mine {
		s.Before = append(s.Before, q.UID)
	}
	if v, ok := pod.Annotations[corev1.PodDeletionCost]; ok {
		s.Cost = &v
	}
	return s, "", nil
}

// settledDeployment reads the Deployment until it is settled, at most
// surgeSettle: right after a surge of it, its status catches up with the
// pod the ReplicaSet removed. It returns nil and why when it is gone or
// stays unsettled.
func (r *Runner) settledDeployment(ctx context.Context, namespace, name string) (*appsv1.Deployment, string, error) {
	var (
		d   *appsv1.Deployment
		why string
	)
	err := wait.PollUntilContextTimeout(ctx, surgePoll, surgeSettle, true, func(ctx context.Context) (bool, error) {
		list, err := r.cfg.Client.AppsV1().Deployments(namespace).List(ctx, byName(name))
		switch {
		case err != nil:
			return false, err
		case len(list.Items) == 0:
			why = fmt.Sprintf("Deployment %s/%s is gone", namespace, name)
			return true, nil
		}
		d, why = &list.Items[0], cluster.Unsettled(&list.Items[0])
		return why == "", nil
	})
	switch {
	case why != "":
		return nil, why, nil
	case err != nil:
		return nil, "", err
	}
	return d, "", nil
}

// replicaSetPods lists the live pods the ReplicaSet controls.
func (r *Runner) replicaSetPods(ctx context.Context, namespace, name string) ([]corev1.Pod, error) {
	list, err := r.cfg.Client.AppsV1().ReplicaSets(namespace).List(ctx, byName(name))
	if err != nil || len(list.Items) == 0 {
		return nil, err
	}
	rs := &list.Items[0]
	sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		return nil, err
	}
	pods, err := r.cfg.Client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, err
	}
	var out []corev1.Pod
	for _, q := range pods.Items {
		if owner := metav1.GetControllerOfNoCopy(&q); owner != nil && owner.UID == rs.UID && q.DeletionTimestamp == nil {
			out = append(out, q)
		}
	}
	return out, nil
}

// replicaFailure returns the ReplicaSet's ReplicaFailure condition's
// message: why its controller could not create a pod (a quota, a
// LimitRange, admission), "" when it could.
func (r *Runner) replicaFailure(ctx context.Context, namespace, name string) (string, error) {
	list, err := r.cfg.Client.AppsV1().ReplicaSets(namespace).List(ctx, byName(name))
	if err != nil || len(list.Items) == 0 {
		return "", err
	}
	for _, c := range list.Items[0].Status.Conditions {
		if c.Type == appsv1.ReplicaSetReplicaFailure && c.Status == corev1.ConditionTrue {
			return c.Message, nil
		}
	}
	return "", nil
}

// scaleSurge sets the Deployment's spec.replicas from one count to
// another through its scale subresource, and does nothing when it holds
// another count: someone else set it, and theirs stands. The update
// carries the resourceVersion read, so that a change in between fails it.
func (r *Runner) scaleSurge(ctx context.Context, s cluster.Surge, from, to int32) error {
	ns, name, _ := strings.Cut(s.Deployment, "/")
	deployments := r.cfg.Client.AppsV1().Deployments(ns)
	scale, err := deployments.GetScale(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if scale.Spec.Replicas != from {
		return &replicasChanged{deployment: s.Deployment, have: scale.Spec.Replicas, want: from}
	}
	scale.Spec.Replicas = to
	_, err = deployments.UpdateScale(ctx, name, scale, metav1.UpdateOptions{})
	return err
}

// replicasChanged says that a Deployment's spec.replicas is not what the
// surge left it at: someone else set it, and theirs stands.
type replicasChanged struct {
	deployment string
	have, want int32
}

func (e *replicasChanged) Error() string {
	return fmt.Sprintf("%s has spec.replicas %d, not %d: someone else set it, and it is left as it is", e.deployment, e.have, e.want)
}

// waitSurgeReady waits until a pod the surge made is Ready, at most
// --step-timeout, and returns it; or nil and why it stopped waiting.
func (r *Runner) waitSurgeReady(ctx context.Context, s cluster.Surge) (*corev1.Pod, string) {
	timeout := r.cfg.StepTimeout
	if timeout <= 0 {
		timeout = DefaultStepTimeout
	}
	wctx, cancel := until(ctx, time.Now().Add(timeout), fmt.Errorf("--step-timeout %s reached", timeout))
	defer cancel()
	ns, _, _ := strings.Cut(s.Deployment, "/")
	var (
		ready   *corev1.Pod
		refused string
		waiting = "the new pod to be created"
	)
	err := wait.PollUntilContextCancel(wctx, surgePoll, false, func(ctx context.Context) (bool, error) {
		pods, err := r.replicaSetPods(ctx, ns, s.ReplicaSet)
		if err != nil {
			return false, nil // one more reason to wait
		}
		made := slices.DeleteFunc(pods, func(q corev1.Pod) bool { return slices.Contains(s.Before, q.UID) })
		for i := range made {
			if podReady(&made[i]) {
				ready = &made[i]
				return true, nil
			}
		}
		if len(made) > 0 {
			waiting = fmt.Sprintf("pod %s to be Ready", made[0].Name)
			if made[0].Spec.NodeName != "" {
				waiting += " on " + made[0].Spec.NodeName
			}
			return false, nil
		}
		if refused, err = r.replicaFailure(ctx, ns, s.ReplicaSet); err == nil && refused != "" {
			return false, errors.New(refused)
		}
		return false, nil
	})
	if err == nil {
		return ready, ""
	}
	if refused != "" {
		return nil, "the ReplicaSet could not create the extra pod: " + refused
	}
	return nil, fmt.Sprintf("%s while waiting for %s", context.Cause(wctx), waiting)
}

// finishSurge gives the old pod the lowest deletion cost and brings the
// Deployment back to its replicas.
func (r *Runner) finishSurge(ctx context.Context, s cluster.Surge) error {
	if err := r.setDeletionCost(ctx, s.Pod, s.UID, &lowestDeletionCost); err != nil {
		return err
	}
	return r.scaleSurge(ctx, s, s.Replicas+1, s.Replicas)
}

// waitSurgeGone waits until the old pod is leaving, and says what happened
// instead when it is not: the ReplicaSet removed another pod.
func (r *Runner) waitSurgeGone(ctx context.Context, s cluster.Surge) string {
	ns, name, _ := strings.Cut(s.Pod, "/")
	gone := false
	_ = wait.PollUntilContextTimeout(ctx, surgePoll, surgeGone, true, func(ctx context.Context) (bool, error) {
		list, err := r.cfg.Client.CoreV1().Pods(ns).List(ctx, byName(name))
		if err != nil {
			return false, nil
		}
		gone = len(list.Items) == 0 || list.Items[0].UID != s.UID || list.Items[0].DeletionTimestamp != nil
		return gone, nil
	})
	if gone {
		return ""
	}
	// Not the cost's choice after all (a pod that was not Ready comes
	// first): the old pod keeps running, as its own cost again.
	if err := r.setDeletionCost(context.WithoutCancel(ctx), s.Pod, s.UID, s.Cost); err != nil {
		klog.ErrorS(err, "Could not restore the pod's deletion cost", "pod", s.Pod)
	}
	return "the ReplicaSet removed another of its pods, which was not Ready, and the pod still runs"
}

// setDeletionCost sets the pod's pod-deletion-cost annotation, or removes
// it for nil; a pod that is gone, or now another pod of that name, needs
// neither.
func (r *Runner) setDeletionCost(ctx context.Context, pod string, uid types.UID, cost *string) error {
	ns, name, _ := strings.Cut(pod, "/")
	list, err := r.cfg.Client.CoreV1().Pods(ns).List(ctx, byName(name))
	if err != nil {
		return err
	}
	if len(list.Items) == 0 || list.Items[0].UID != uid {
		return nil
	}
	var value any
	if cost != nil {
		value = *cost
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{corev1.PodDeletionCost: value}}})
	if err != nil {
		return err
	}
	_, err = r.cfg.Client.CoreV1().Pods(ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// undone undoes a surge that could not finish, retracts its intent, and
// returns its outcome: rolled back, or failed when it could not be undone
// (the record then stays for the next run).
func (r *Runner) undone(ctx context.Context, m planner.Move, s cluster.Surge, intent *cluster.Eviction, why string) evictor.Outcome {
	// Undone even when the run is being stopped.
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	klog.InfoS("Surge undone: the pod stays", "pod", m.Pod, "deployment", s.Deployment, "why", why)
	if intent != nil {
		if err := r.cfg.History.Forget(uctx, time.Now(), []cluster.Eviction{*intent}); err != nil {
			klog.ErrorS(err, "Could not retract the surge's intent", "pod", m.Pod)
		}
	}
	if err := r.undoSurge(uctx, s); err != nil {
		return evictor.Outcome{Move: m, Result: evictor.Failed, Message: fmt.Sprintf("%s; undoing the surge failed, the next run undoes it: %v", why, err)}
	}
	return evictor.Outcome{Move: m, Result: evictor.RolledBack, Message: why + "; undone, the pod stays"}
}

// undoSurge brings a surge's Deployment back to its replicas with the old
// pod kept: the pods the surge made get the lowest deletion cost, the old
// pod its own again. Its record is forgotten once that is done.
func (r *Runner) undoSurge(ctx context.Context, s cluster.Surge) error {
	ns, name, _ := strings.Cut(s.Deployment, "/")
	if err := r.setDeletionCost(ctx, s.Pod, s.UID, s.Cost); err != nil {
		return err
	}
	scale, err := r.cfg.Client.AppsV1().Deployments(ns).GetScale(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return r.cfg.History.ForgetSurge(ctx, s)
	case err != nil:
		return err
	case scale.Spec.Replicas != s.Replicas+1:
		// Never raised, already back, or set by someone else: the count
		// stands, and no pod is marked to go.
		if scale.Spec.Replicas != s.Replicas {
			klog.InfoS("The Deployment's replicas were set by someone else during the surge; they are left as set", "deployment", s.Deployment, "replicas", scale.Spec.Replicas)
		}
		return r.cfg.History.ForgetSurge(ctx, s)
	}
	pods, err := r.replicaSetPods(ctx, ns, s.ReplicaSet)
	if err != nil {
		return err
	}
	for _, q := range pods {
		if !slices.Contains(s.Before, q.UID) {
			if err := r.setDeletionCost(ctx, ns+"/"+q.Name, q.UID, &lowestDeletionCost); err != nil {
				return err
			}
		}
	}
	var changed *replicasChanged
	if err := r.scaleSurge(ctx, s, s.Replicas+1, s.Replicas); err != nil && !errors.As(err, &changed) && !apierrors.IsNotFound(err) {
		return err
	}
	return r.cfg.History.ForgetSurge(ctx, s)
}

// recoverSurges finishes or undoes the surges an earlier run left under
// way (it was killed, or lost the API server, half-way), before this run
// reads the cluster: none may start beside one it does not know the end
// of.
func (r *Runner) recoverSurges(ctx context.Context) error {
	surges, err := r.cfg.History.Surges(ctx)
	var bad *cluster.StateError
	if errors.As(err, &bad) {
		// As for the evictions: a state this version cannot use is
		// replaced, never a reason to stop every later run.
		klog.ErrorS(err, "Ignoring the recorded surges under way: none is ended by this run")
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the surges under way: %w", err)
	}
	for _, s := range surges {
		how, err := r.recoverSurge(ctx, s)
		if err != nil {
			return fmt.Errorf("ending the surge of %s that an earlier run left under way: %w", s.Pod, err)
		}
		klog.InfoS("Ended a surge an earlier run left under way", "pod", s.Pod, "deployment", s.Deployment, "how", how)
	}
	return nil
}

// recoverSurge ends one surge left under way: finished when its new pod
// is Ready and the old pod still runs, undone otherwise.
func (r *Runner) recoverSurge(ctx context.Context, s cluster.Surge) (string, error) {
	ns, name, _ := strings.Cut(s.Deployment, "/")
	list, err := r.cfg.Client.AppsV1().Deployments(ns).List(ctx, byName(name))
	if err != nil {
		return "", err
	}
	if len(list.Items) == 0 || list.Items[0].UID != s.DeploymentUID {
		return "its Deployment is gone: nothing to restore", r.cfg.History.ForgetSurge(ctx, s)
	}
	pods, err := r.replicaSetPods(ctx, ns, s.ReplicaSet)
	if err != nil {
		return "", err
	}
	old, readyNew := false, false
	for i := range pods {
		old = old || pods[i].UID == s.UID
		readyNew = readyNew || !slices.Contains(s.Before, pods[i].UID) && podReady(&pods[i])
	}
	if old && readyNew {
		var changed *replicasChanged
		switch err := r.finishSurge(ctx, s); {
		case err == nil:
			return "finished: its new pod was Ready", r.cfg.History.ForgetSurge(ctx, s)
		case !errors.As(err, &changed):
			return "", err
		}
	}
	return "undone: the pod stays", r.undoSurge(ctx, s)
}
