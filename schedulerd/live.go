package schedulerd

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/scheduler"
)

// Live is the scheduler loop of `rebalancer schedule`. It binds the pending
// pods that name its scheduler, with the engine's rules, and places each
// replacement of a pod rebalancer evicted on the node the plan chose for it
// when that node still fits; otherwise on the best node other than those its
// workload just left, and only as a last resort back on one of them, since a
// Pending pod is worse than a pod on its old node.
type Live struct {
	Client kubernetes.Interface
	Engine *scheduler.Engine
	// SchedulerName selects the pods to schedule: spec.schedulerName.
	SchedulerName string
	// History, when set, holds the recent evictions whose replacements are
	// matched to their planned nodes.
	History *kube.HistoryStore
	// HandoffTTL is how long after an eviction its replacement is expected.
	HandoffTTL time.Duration
	// Resync bounds how long the loop sleeps without an event.
	Resync time.Duration
	// Metrics, when set, counts the attempts and their outcomes.
	Metrics *Metrics
	// BindByExtender, when set, binds through the extender that has a
	// bindVerb, as kube-scheduler does before its Binding API; it reports
	// false when it left the pod to the Binding API.
	BindByExtender func(ctx context.Context, pod *corev1.Pod, node string) (bool, error)

	handoffs *handoffs
	backoff  map[types.UID]retry
	assumed  map[types.UID]assumption
	recorder record.EventRecorder
}

// assumption is a binding the API server accepted that the informer cache
// may not show yet. Until it does, the pod is not scheduled again and its
// node keeps its resources reserved, as kube-scheduler's assume cache does.
type assumption struct {
	node string
	at   time.Time
}

// assumeTTL bounds how long a binding is assumed without the cache
// confirming it; past it, the cache is believed.
const assumeTTL = 30 * time.Second

type retry struct {
	at    time.Time
	delay time.Duration
}

// Backoff of a pod that could not be scheduled, as kube-scheduler's: from
// one second, doubling, to a minute.
const (
	initialBackoff = time.Second
	maxBackoff     = time.Minute
)

// Run schedules until ctx ends.
func (l *Live) Run(ctx context.Context) error {
	if l.HandoffTTL == 0 {
		l.HandoffTTL = 10 * time.Minute
	}
	if l.Resync == 0 {
		l.Resync = 5 * time.Second
	}
	l.handoffs = &handoffs{consumed: map[string]bool{}}
	l.backoff = map[types.UID]retry{}
	l.assumed = map[types.UID]assumption{}
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: l.Client.CoreV1().Events("")})
	defer broadcaster.Shutdown()
	l.recorder = broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: l.SchedulerName})

	factory := informers.NewSharedInformerFactory(l.Client, 0)
	pods := factory.Core().V1().Pods()
	nodes := factory.Core().V1().Nodes()
	namespaces := factory.Core().V1().Namespaces()
	replicaSets := factory.Apps().V1().ReplicaSets()
	wake := make(chan struct{}, 1)
	signal := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { poke(wake) },
		UpdateFunc: func(any, any) { poke(wake) },
		DeleteFunc: func(any) { poke(wake) },
	}
	for _, inf := range []cache.SharedIndexInformer{pods.Informer(), nodes.Informer()} {
		if _, err := inf.AddEventHandler(signal); err != nil {
			return err
		}
	}
	// Listers register their informers with the factory: take them before
	// Start, so that every cache is started and synced.
	podLister, nodeLister, nsLister, rsLister := pods.Lister(), nodes.Lister(), namespaces.Lister(), replicaSets.Lister()
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("caching %v did not complete", typ)
		}
	}
	klog.InfoS("Scheduler started", "schedulerName", l.SchedulerName)

	lists := listers{
		pods:        func() ([]*corev1.Pod, error) { return podLister.List(labels.Everything()) },
		nodes:       func() ([]*corev1.Node, error) { return nodeLister.List(labels.Everything()) },
		namespaces:  func() ([]*corev1.Namespace, error) { return nsLister.List(labels.Everything()) },
		replicaSets: rsLister.List,
	}
	for {
		next, err := l.round(ctx, lists)
		if err != nil {
			klog.ErrorS(err, "Scheduling round failed")
		}
		wait := l.Resync
		if next > 0 && next < wait {
			wait = next
		}
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-time.After(wait):
		}
	}
}

func poke(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// round schedules every pending pod whose backoff has passed, on one
// snapshot, reserving each placement before the next. It returns when the
// next backed-off pod is due.
func (l *Live) round(ctx context.Context, lists listers) (time.Duration, error) {
	now := time.Now()
	all, err := lists.pods()
	if err != nil {
		return 0, err
	}
	var due, assumed []*corev1.Pod
	var next time.Duration
	backingOff := 0
	for _, p := range all {
		if a, ok := l.assumed[p.UID]; ok {
			if p.Spec.NodeName == "" && now.Sub(a.at) < assumeTTL {
				assumed = append(assumed, p)
				continue
			}
			delete(l.assumed, p.UID)
		}
		if !l.wants(p) {
			delete(l.backoff, p.UID)
			continue
		}
		if r, ok := l.backoff[p.UID]; ok && now.Before(r.at) {
			if d := r.at.Sub(now); next == 0 || d < next {
				next = d
			}
			backingOff++
			continue
		}
		due = append(due, p)
	}
	l.Metrics.queues(len(due), backingOff)
	if len(due) == 0 {
		return next, nil
	}
	snap, err := lists.snapshot(all, now)
	if err != nil {
		return next, err
	}
	for _, pod := range assumed {
		if p := snap.Pod(pod.Namespace + "/" + pod.Name); p != nil {
			if err := snap.Place(p, l.assumed[pod.UID].node); err != nil {
				// The node is gone: nothing is reserved there any more.
				delete(l.assumed, pod.UID)
			}
		}
	}
	evictions := l.readHandoffs(ctx, now)
	slices.SortFunc(due, byQueueOrder)
	for _, pod := range due {
		p := snap.Pod(pod.Namespace + "/" + pod.Name)
		if p == nil {
			continue
		}
		node, placement, how := l.decide(snap, p, evictions)
		if node == "" {
			l.Metrics.attempt(resultUnschedulable)
			l.unschedulable(ctx, pod, how)
			continue
		}
		if msg := l.permit(ctx, snap, p, node); msg != "" {
			l.Metrics.attempt(resultUnschedulable)
			l.unschedulable(ctx, pod, msg)
			continue
		}
		start := time.Now()
		err := l.bind(ctx, pod, node)
		l.Metrics.bound(time.Since(start))
		if err != nil {
			l.Metrics.attempt(resultError)
			klog.ErrorS(err, "Binding failed", "pod", klog.KObj(pod), "node", node)
			l.retryLater(pod.UID, now)
			continue
		}
		l.Metrics.attempt(resultScheduled)
		l.Metrics.placed(placement)
		if err := snap.Place(p, node); err != nil {
			return next, err
		}
		l.assumed[pod.UID] = assumption{node: node, at: now}
		delete(l.backoff, pod.UID)
		klog.InfoS("Scheduled pod", "pod", klog.KObj(pod), "node", node, "why", how)
		l.recorder.Eventf(pod, corev1.EventTypeNormal, "Scheduled", "Successfully assigned %s/%s to %s (%s)", pod.Namespace, pod.Name, node, how)
	}
	return next, nil
}

// wants reports whether the pod is this scheduler's to place now.
func (l *Live) wants(p *corev1.Pod) bool {
	return p.Spec.SchedulerName == l.SchedulerName && p.Spec.NodeName == "" && p.DeletionTimestamp == nil &&
		len(p.Spec.SchedulingGates) == 0 && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

// byQueueOrder is kube-scheduler's queue order: higher priority first, then
// older pods first.
func byQueueOrder(a, b *corev1.Pod) int {
	pa, pb := int32(0), int32(0)
	if a.Spec.Priority != nil {
		pa = *a.Spec.Priority
	}
	if b.Spec.Priority != nil {
		pb = *b.Spec.Priority
	}
	if pa != pb {
		if pa > pb {
			return -1
		}
		return 1
	}
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
}

// decide returns the node for the pod, how it was chosen (placementPlanned…)
// and a few words on why; or no node and the reason it fits nowhere.
func (l *Live) decide(snap *cluster.Snapshot, p *cluster.Pod, evictions []cluster.Eviction) (node, placement, how string) {
	var left []string
	if e, ok := l.handoffs.match(p.Workload, evictions); ok {
		if n := snap.Node(e.To); n != nil {
			if fits, _ := l.Engine.Fits(snap, p, n); fits {
				l.handoffs.consume(e)
				return e.To, placementPlanned, fmt.Sprintf("planned by rebalancer %s when it evicted %s from %s", e.Strategy, e.Pod, e.From)
			}
		}
		l.handoffs.consume(e)
		for _, r := range evictions {
			if r.Workload == p.Workload && !slices.Contains(left, r.From) {
				left = append(left, r.From)
			}
		}
	}
	if len(left) > 0 {
		if res := l.Engine.Schedule(snap, p, scheduler.Options{Exclude: left}); res.Node != "" {
			return res.Node, placementAvoidedLeft, fmt.Sprintf("the planned node no longer fits; best node other than %s, which its workload just left", strings.Join(left, ", "))
		}
	}
	res := l.Engine.Schedule(snap, p, scheduler.Options{})
	if res.Node == "" {
		return "", "", res.Message
	}
	return res.Node, placementBest, fmt.Sprintf("best of %d feasible nodes, score %d", res.Feasible, res.Score)
}

func (l *Live) bind(ctx context.Context, pod *corev1.Pod, node string) error {
	if l.BindByExtender != nil {
		if bound, err := l.BindByExtender(ctx, pod, node); bound {
			return err
		}
	}
	b := &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: node},
	}
	return l.Client.CoreV1().Pods(pod.Namespace).Bind(ctx, b, metav1.CreateOptions{})
}

// unschedulable tells the user, as kube-scheduler does: a FailedScheduling
// event on every failed attempt (the event correlator folds repeats into a
// count) and a PodScheduled=False condition, patched when its message
// changes; then backs off.
func (l *Live) unschedulable(ctx context.Context, pod *corev1.Pod, message string) {
	l.retryLater(pod.UID, time.Now())
	l.recorder.Event(pod, corev1.EventTypeWarning, "FailedScheduling", message)
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Message == message {
			return // already said
		}
	}
	klog.InfoS("Pod fits no node", "pod", klog.KObj(pod), "message", message)
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": []corev1.PodCondition{{
		Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
		Message: message, LastTransitionTime: metav1.Now(),
	}}}})
	if err == nil {
		_, err = l.Client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	}
	if err != nil {
		klog.ErrorS(err, "Could not record the pod's unschedulable condition", "pod", klog.KObj(pod))
	}
}

func (l *Live) retryLater(uid types.UID, now time.Time) {
	r := l.backoff[uid]
	switch {
	case r.delay == 0:
		r.delay = initialBackoff
	case r.delay < maxBackoff:
		r.delay = min(2*r.delay, maxBackoff)
	}
	r.at = now.Add(r.delay)
	l.backoff[uid] = r
}

// readHandoffs returns the evictions whose replacements may still come.
func (l *Live) readHandoffs(ctx context.Context, now time.Time) []cluster.Eviction {
	if l.History == nil {
		return nil
	}
	all, err := l.History.Read(ctx)
	if err != nil {
		klog.ErrorS(err, "Reading the planned placements failed; scheduling without them")
		return nil
	}
	return slices.DeleteFunc(all, func(e cluster.Eviction) bool { return now.Sub(e.At) > l.HandoffTTL || e.To == "" })
}

// handoffs remembers which evictions already had their replacement placed.
type handoffs struct {
	mu       sync.Mutex
	consumed map[string]bool
}

// match returns the oldest eviction of the workload whose replacement has
// not been placed.
func (h *handoffs) match(w cluster.Workload, evictions []cluster.Eviction) (cluster.Eviction, bool) {
	if w.IsZero() {
		return cluster.Eviction{}, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range evictions {
		if e.Workload == w && !h.consumed[e.ID()] {
			return e, true
		}
	}
	return cluster.Eviction{}, false
}

func (h *handoffs) consume(e cluster.Eviction) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.consumed[e.ID()] = true
}
