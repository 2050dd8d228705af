package schedulerd

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/volumebinding"
)

// Live is the scheduler loop of `rebalancer schedule`. It binds the pending
// pods that name its scheduler, with the engine's rules, and places each
// replacement of a pod rebalancer evicted on the node the plan chose for it
// when that node still fits; otherwise on the best node other than those its
// workload just left, and only as a last resort back on one of them, since a
// Pending pod is worse than a pod on its old node.
//
// It works as kube-scheduler does: informers keep a cache up to date event
// by event, a scheduling queue orders the pending pods and backs off those
// that failed, one pod is decided at a time on the cache, and its Binding
// is sent from a goroutine of its own while the next pod is decided, the
// node's resources assumed taken meanwhile.
type Live struct {
	Client kubernetes.Interface
	// EventClient, when set, sends the events, so that they never take
	// the rate the bindings need (kube-scheduler has a client of its own
	// for events too); Client otherwise.
	EventClient kubernetes.Interface
	Engine      *engine.Engine
	// SchedulerName selects the pods to schedule: spec.schedulerName.
	SchedulerName string
	// History, when set, holds the recent evictions whose replacements are
	// matched to their planned nodes.
	History *kube.HistoryStore
	// HandoffTTL is how long after an eviction its replacement is expected.
	HandoffTTL time.Duration
	// InitialBackoff and MaxBackoff are the profile's
	// podInitialBackoffSeconds and podMaxBackoffSeconds; zero for
	// kube-scheduler's defaults, 1 s and 10 s.
	InitialBackoff, MaxBackoff time.Duration
	// Metrics, when set, counts the attempts and their outcomes.
	Metrics *Metrics
	// BindByExtender, when set, binds through the extender that has a
	// bindVerb, as kube-scheduler does before its Binding API; it reports
	// false when it left the pod to the Binding API.
	BindByExtender func(ctx context.Context, pod *corev1.Pod, node string) (bool, error)

	handoffs   *handoffs
	departures departures
	queue      *queue
	cache      *podCache
	listers    volumeListers
	recorder   record.EventRecorder
	// evictions are the hand-offs read last, and when.
	evictions   []cluster.Eviction
	evictionsAt time.Time
	// bindings counts the Bindings in flight, so that Run returns after
	// them.
	bindings sync.WaitGroup
}

// handoffsReadEvery bounds how often the state ConfigMap is read: once per
// pod would cost a request per decision.
const handoffsReadEvery = time.Second

// Run schedules until ctx ends.
func (l *Live) Run(ctx context.Context) error {
	if l.HandoffTTL == 0 {
		l.HandoffTTL = 10 * time.Minute
	}
	l.handoffs = &handoffs{consumed: map[string]bool{}}
	l.queue = newQueue(l.InitialBackoff, l.MaxBackoff, time.Now)
	events := l.EventClient
	if events == nil {
		events = l.Client
	}
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: events.CoreV1().Events("")})
	defer broadcaster.Shutdown()
	l.recorder = broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: l.SchedulerName})

	factory := informers.NewSharedInformerFactory(l.Client, 0)
	rsLister := factory.Apps().V1().ReplicaSets().Lister()
	l.cache = newPodCache(func(namespace, name string) *metav1.OwnerReference {
		rs, err := rsLister.ReplicaSets(namespace).Get(name)
		if err != nil {
			return nil
		}
		return metav1.GetControllerOfNoCopy(rs)
	})
	synced, err := l.watch(factory)
	if err != nil {
		return err
	}
	l.listers = volumeListers{
		claims: factory.Core().V1().PersistentVolumeClaims().Lister(),
		pvs:    factory.Core().V1().PersistentVolumes().Lister(),
		pods:   factory.Core().V1().Pods().Lister(),
		nodes:  factory.Core().V1().Nodes().Lister(),
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("caching %v did not complete", typ)
		}
	}
	// The handlers too must have seen every object listed, or the first
	// pods would be tried on a cache without the nodes.
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return nil
	}
	// Every claim, volume, class and CSINode is in the cache now: a claim
	// that is not there does not exist.
	l.cache.push(change{volumesListed: true})
	klog.InfoS("Scheduler started", "schedulerName", l.SchedulerName)

	go l.queue.run(ctx.Done())
	defer l.bindings.Wait()
	for {
		qp := l.queue.pop()
		if ctx.Err() != nil {
			return nil
		}
		l.cache.apply(time.Now())
		l.Metrics.queues(l.queue.lengths())
		if qp != nil {
			l.scheduleOne(ctx, qp)
		}
	}
}

// watch feeds the cache and the queue from the informers. Each handler
// gives the cache the change before the queue the pod, so that a pod the
// loop pops is in the cache once the loop has applied what was pushed.
func (l *Live) watch(factory informers.SharedInformerFactory) ([]cache.InformerSynced, error) {
	pods := cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			p, ok := obj.(*corev1.Pod)
			if !ok {
				return
			}
			l.cache.push(change{pod: p})
			switch {
			case l.wants(p):
				l.queue.add(p)
			case p.Spec.NodeName != "" && !finished(p):
				l.queue.move(hasRequiredPodAffinity)
			}
		},
		UpdateFunc: func(oldObj, obj any) {
			old, ok1 := oldObj.(*corev1.Pod)
			p, ok2 := obj.(*corev1.Pod)
			if !ok1 || !ok2 {
				return
			}
			l.cache.push(change{pod: p})
			if old.DeletionTimestamp == nil && p.DeletionTimestamp != nil {
				l.departures.left(p, time.Now(), l.HandoffTTL)
			}
			if l.wants(p) {
				l.queue.add(p)
				return
			}
			l.queue.remove(p.UID)
			switch {
			case old.Spec.NodeName == "" && p.Spec.NodeName != "":
				l.queue.move(hasRequiredPodAffinity)
			case p.Spec.NodeName == "":
			case assignedPodFreed(old, p), !maps.Equal(old.Labels, p.Labels):
				l.queue.move(nil)
			}
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			p, ok := obj.(*corev1.Pod)
			if !ok {
				return
			}
			l.cache.push(change{pod: p, deleted: true})
			l.departures.left(p, time.Now(), l.HandoffTTL)
			l.queue.remove(p.UID)
			if p.Spec.NodeName != "" && !finished(p) {
				l.queue.move(nil)
			}
		},
	}
	nodes := cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if n, ok := obj.(*corev1.Node); ok {
				l.cache.push(change{node: n})
				l.queue.move(nil)
			}
		},
		UpdateFunc: func(oldObj, obj any) {
			old, ok1 := oldObj.(*corev1.Node)
			n, ok2 := obj.(*corev1.Node)
			if !ok1 || !ok2 {
				return
			}
			l.cache.push(change{node: n})
			if nodeMayTakeMore(old, n) {
				l.queue.move(nil)
			}
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if n, ok := obj.(*corev1.Node); ok {
				l.cache.push(change{node: n, deleted: true})
			}
		},
	}
	namespaces := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { l.pushNamespace(obj, false) },
		UpdateFunc: func(_, obj any) { l.pushNamespace(obj, false) },
		DeleteFunc: func(obj any) { l.pushNamespace(obj, true) },
	}
	handlers := map[cache.SharedIndexInformer]cache.ResourceEventHandler{
		factory.Core().V1().Pods().Informer():       pods,
		factory.Core().V1().Nodes().Informer():      nodes,
		factory.Core().V1().Namespaces().Informer(): namespaces,
	}
	maps.Copy(handlers, l.volumeInformers(factory))
	budgets, onBudget := l.budgetInformer(factory)
	handlers[budgets] = onBudget
	var synced []cache.InformerSynced
	for inf, h := range handlers {
		reg, err := inf.AddEventHandler(h)
		if err != nil {
			return nil, err
		}
		synced = append(synced, reg.HasSynced)
	}
	return synced, nil
}

func (l *Live) pushNamespace(obj any, deleted bool) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	if ns, ok := obj.(*corev1.Namespace); ok {
		l.cache.push(change{namespace: ns, deleted: deleted})
	}
}

// scheduleOne decides where one pod goes, assumes it there and sends its
// Binding from a goroutine of its own.
func (l *Live) scheduleOne(ctx context.Context, qp *queuedPod) {
	snap := l.cache.snap
	p := snap.Pod(qp.pod.Namespace + "/" + qp.pod.Name)
	if p == nil || p.UID != qp.pod.UID || !l.wants(p.Pod) {
		l.queue.done(qp.pod.UID)
		return
	}
	evictions := l.readHandoffs(ctx, p.Pod, time.Now())
	// The pod as the API server has it: a hold's nomination is the
	// cache's own, never written.
	pod := l.cache.apiObject(p)
	node, placement, how, failed := l.decide(snap, p, evictions)
	if node == "" && failed.Error != "" {
		// An extender failed: an error, not a verdict on the nodes, so
		// kube-scheduler neither preempts nor waits for a cluster event;
		// the pod is tried again after its backoff.
		l.Metrics.attempt(resultError)
		l.queue.failed(pod.UID)
		l.report(ctx, pod, reasonSchedulerError, failed.Message, "")
		return
	}
	if node == "" {
		l.Metrics.attempt(resultUnschedulable)
		message, nominated := l.preempt(ctx, snap, p, failed)
		l.queue.unschedulable(pod.UID)
		l.unschedulable(ctx, pod, message, nominated)
		return
	}
	wait, denied := l.permit(snap, p, node)
	if denied != "" {
		l.Metrics.attempt(resultUnschedulable)
		l.queue.unschedulable(pod.UID)
		l.unschedulable(ctx, pod, denied, "")
		return
	}
	vols, err := l.Engine.PodVolumes(snap, p, node)
	if err != nil {
		l.Metrics.attempt(resultError)
		klog.ErrorS(err, "Choosing the pod's volumes failed", "pod", klog.KObj(pod), "node", node)
		l.queue.failed(pod.UID)
		return
	}
	if err := l.cache.assume(p, node, vols); err != nil {
		l.Metrics.attempt(resultError)
		klog.ErrorS(err, "Assuming the pod failed", "pod", klog.KObj(pod), "node", node)
		l.queue.failed(pod.UID)
		return
	}
	l.bindings.Add(1)
	go func() {
		defer l.bindings.Done()
		if wait {
			if err := l.Engine.WaitOnPermit(ctx, pod.UID); err != nil {
				l.Metrics.attempt(resultUnschedulable)
				l.cache.push(change{bindFailed: pod.UID})
				l.queue.unschedulable(pod.UID)
				l.unschedulable(ctx, pod, err.Error(), "")
				return
			}
		}
		l.bindingCycle(ctx, pod, node, vols, placement, how)
	}()
}

// bindingCycle binds the pod's volumes, then sends its Binding, and
// reports the outcome to the cache and the queue: a refused Binding gives
// the node's resources back, and the pod is tried again after its backoff.
func (l *Live) bindingCycle(ctx context.Context, pod *corev1.Pod, node string, vols volumebinding.PodVolumes, placement, how string) {
	if !vols.Empty() {
		if err := l.preBindVolumes(ctx, pod, vols); err != nil {
			l.Metrics.attempt(resultError)
			l.cache.push(change{bindFailed: pod.UID})
			l.queue.failed(pod.UID)
			l.queue.move(nil)
			if ctx.Err() == nil {
				message := vols.FailedMessage(err)
				klog.ErrorS(err, "Binding the pod's volumes failed", "pod", klog.KObj(pod), "node", node)
				l.report(ctx, pod, reasonSchedulerError, message, "")
			}
			return
		}
	}
	start := time.Now()
	err := l.bind(ctx, pod, node)
	l.Metrics.bound(time.Since(start))
	if err != nil {
		l.Metrics.attempt(resultError)
		klog.ErrorS(err, "Binding failed", "pod", klog.KObj(pod), "node", node)
		l.cache.push(change{bindFailed: pod.UID})
		l.queue.failed(pod.UID)
		// What the assumption held is free again for the pods waiting.
		l.queue.move(nil)
		return
	}
	l.cache.push(change{bound: pod.UID, at: time.Now()})
	l.queue.done(pod.UID)
	if nominated := pod.Status.NominatedNodeName; nominated != "" && nominated != node {
		// Bound elsewhere: the nominated node holds nothing for it any more.
		l.patchStatus(ctx, pod, map[string]any{"nominatedNodeName": nil}, "clearing the nominated node")
	}
	l.Metrics.attempt(resultScheduled)
	l.Metrics.placed(placement)
	klog.V(2).InfoS("Scheduled pod", "pod", klog.KObj(pod), "node", node, "why", how)
	l.recorder.Eventf(pod, corev1.EventTypeNormal, "Scheduled", "Successfully assigned %s/%s to %s (%s)", pod.Namespace, pod.Name, node, how)
}

// wants reports whether the pod is this scheduler's to place now.
func (l *Live) wants(p *corev1.Pod) bool {
	return p.Spec.SchedulerName == l.SchedulerName && p.Spec.NodeName == "" && p.DeletionTimestamp == nil &&
		len(p.Spec.SchedulingGates) == 0 && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

// decide returns the node for the pod, how it was chosen (placementPlanned…)
// and a few words on why; or no node and the reason it fits nowhere.
//
// When no node fits, failed is the engine's result, for preemption.
func (l *Live) decide(snap *cluster.Snapshot, p *cluster.Pod, evictions []cluster.Eviction) (node, placement, how string, failed engine.Result) {
	// An eviction whose pod still runs where it was, under its UID, never
	// happened (a run killed between recording and evicting): it steers
	// no pod. The cache has seen the eviction of a pod before the pod
	// that replaces it, as the watch delivers them. A surge's pod runs
	// until its replacement is Ready: it steers at once.
	if undone := cluster.NotCarriedOut(evictions, snap); len(undone) > 0 {
		evictions = slices.DeleteFunc(slices.Clone(evictions), func(e cluster.Eviction) bool {
			return !e.Surge && slices.ContainsFunc(undone, func(u cluster.Eviction) bool { return u.ID() == e.ID() })
		})
	}
	if held := l.cache.heldFor(p.UID); held != "" {
		// A run freed this node for the pod: it goes there when it fits.
		if n := snap.Node(held); n != nil {
			if fits, _ := l.Engine.Fits(snap, p, n); fits {
				return held, placementHeld, "held for it by rebalancer, whose moves freed the node", failed
			}
		}
	}
	var left []string
	if e, ok := l.handoffs.match(p.Workload, evictions); ok {
		if n := snap.Node(e.To); n != nil {
			if fits, _ := l.Engine.Fits(snap, p, n); fits {
				l.handoffs.consume(e)
				how := "when it evicted"
				if e.Surge {
					how = "for its surge of"
				}
				return e.To, placementPlanned, fmt.Sprintf("planned by rebalancer %s %s %s from %s", e.Strategy, how, e.Pod, e.From), failed
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
		if res := l.Engine.Schedule(snap, p, engine.Options{Exclude: left}); res.Node != "" {
			return res.Node, placementAvoidedLeft, fmt.Sprintf("the planned node no longer fits; best node other than %s, which its workload just left", strings.Join(left, ", ")), failed
		}
	}
	res := l.Engine.Schedule(snap, p, engine.Options{})
	if res.Node == "" {
		return "", "", res.Message, res
	}
	return res.Node, placementBest, fmt.Sprintf("best of %d feasible nodes, score %d", res.Feasible, res.Score), failed
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
// changes; with the node preemption nominated the pod to, if any, in
// status.nominatedNodeName.
func (l *Live) unschedulable(ctx context.Context, pod *corev1.Pod, message, nominated string) {
	l.report(ctx, pod, corev1.PodReasonUnschedulable, message, nominated)
}

// reasonSchedulerError is the PodScheduled reason of a pod whose
// scheduling failed for an error rather than for want of a node, as
// kube-scheduler words it.
const reasonSchedulerError = "SchedulerError"

// report records a failed attempt: the FailedScheduling event, and the
// PodScheduled=False condition with reason and message.
func (l *Live) report(ctx context.Context, pod *corev1.Pod, reason, message, nominated string) {
	l.recorder.Event(pod, corev1.EventTypeWarning, "FailedScheduling", message)
	if pod.Status.NominatedNodeName == nominated || nominated == "" {
		for _, c := range pod.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == reason && c.Message == message {
				return // already said
			}
		}
	}
	klog.InfoS("Pod not scheduled", "pod", klog.KObj(pod), "reason", reason, "message", message, "nominatedNode", nominated)
	status := map[string]any{"conditions": []corev1.PodCondition{{
		Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: reason,
		Message: message, LastTransitionTime: metav1.Now(),
	}}}
	if nominated != "" {
		status["nominatedNodeName"] = nominated
	}
	patch, err := json.Marshal(map[string]any{"status": status})
	if err == nil {
		_, err = l.Client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	}
	if err != nil {
		klog.ErrorS(err, "Could not record the pod's PodScheduled condition", "pod", klog.KObj(pod))
	}
}

// readHandoffs returns the evictions whose replacements may still come:
// read at most every handoffsReadEvery, and again for a pod whose
// controller lost a pod since the last read (see departures).
//
// A surge's new pod comes with no departure. The age bound covers it: the
// run waits longer than handoffsReadEvery between recording the intent and
// raising the replicas, so a list read before the intent was written is
// older than the bound when the new pod is decided, and is read again.
func (l *Live) readHandoffs(ctx context.Context, pod *corev1.Pod, now time.Time) []cluster.Eviction {
	if l.History == nil {
		return nil
	}
	if now.Sub(l.evictionsAt) >= handoffsReadEvery || l.departures.since(pod, l.evictionsAt) {
		all, err := l.History.Read(ctx)
		if err != nil {
			klog.ErrorS(err, "Reading the planned placements failed; scheduling without them")
			all = nil
		}
		l.evictions, l.evictionsAt = all, now
		var holds []cluster.Hold
		if err == nil {
			holds = slices.DeleteFunc(slices.Clone(l.History.Holds()), func(h cluster.Hold) bool { return !h.Live(now, l.HandoffTTL) })
		}
		if l.cache != nil {
			l.cache.setHolds(holds)
		}
	}
	return slices.DeleteFunc(slices.Clone(l.evictions), func(e cluster.Eviction) bool { return now.Sub(e.At) > l.HandoffTTL || e.To == "" })
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
