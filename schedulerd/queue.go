package schedulerd

import (
	"container/heap"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The scheduling queue is kube-scheduler's: an active queue in the
// profile's QueueSort order (PrioritySort: higher priority first, then the
// pod that entered the queue first), a backoff queue where a pod that failed
// waits 1 s, 2 s, 4 s … up to the maximum before it is tried again, and a
// pool of unschedulable pods that only a cluster event that may make them
// fit (see events.go) or the periodic flush brings back.
const (
	// DefaultInitialBackoff and DefaultMaxBackoff are kube-scheduler's
	// podInitialBackoffSeconds and podMaxBackoffSeconds.
	DefaultInitialBackoff = time.Second
	DefaultMaxBackoff     = 10 * time.Second
	// maxInUnschedulable is kube-scheduler's
	// podMaxInUnschedulablePodsDuration: a pod no event moved is tried
	// again after it anyway, since not every change is watched.
	maxInUnschedulable = 5 * time.Minute
	// backoffFlushEvery and unschedulableFlushEvery are how often the
	// queue looks for pods whose backoff completed and for pods left in the
	// unschedulable pool too long, as kube-scheduler's flushes.
	backoffFlushEvery       = time.Second
	unschedulableFlushEvery = 30 * time.Second
)

// Where a pod known to the queue is.
const (
	inActive = iota
	inBackoff
	inUnschedulable
	// inFlight: popped and being scheduled or bound.
	inFlight
)

// queuedPod is a pod in the queue with what the queue knows of its
// attempts.
type queuedPod struct {
	pod *corev1.Pod
	// timestamp is when the pod last entered the queue: the active queue's
	// second key, and what backoff is counted from.
	timestamp time.Time
	// attempts counts the failed attempts, which the backoff doubles with.
	attempts int
	// cycle is the scheduling cycle the pod was popped in.
	cycle int64
	where int
	index int // in the heap that holds it
}

// queue is the scheduling queue. Its methods are safe for concurrent use:
// informer handlers add and move pods while the scheduling loop pops them
// and bindings report back.
type queue struct {
	mu   sync.Mutex
	cond *sync.Cond
	now  func() time.Time

	initialBackoff, maxBackoff time.Duration

	pods    map[types.UID]*queuedPod
	active  podHeap
	backoff podHeap
	pool    map[types.UID]*queuedPod
	// cycle counts the pops; moveCycle is the cycle of the last event that
	// moved unschedulable pods. A pod found unschedulable in a cycle at or
	// before moveCycle may have missed the event that makes it fit: it goes
	// to backoff, not to the pool, as in kube-scheduler.
	cycle, moveCycle int64
	// ticks counts the flushes, so that a Pop waiting for a pod also
	// returns regularly and the loop can tend its cache.
	ticks  int64
	closed bool
}

func newQueue(initialBackoff, maxBackoff time.Duration, now func() time.Time) *queue {
	if initialBackoff <= 0 {
		initialBackoff = DefaultInitialBackoff
	}
	if maxBackoff <= 0 {
		maxBackoff = DefaultMaxBackoff
	}
	q := &queue{
		now:            now,
		initialBackoff: initialBackoff,
		maxBackoff:     maxBackoff,
		pods:           map[types.UID]*queuedPod{},
		pool:           map[types.UID]*queuedPod{},
	}
	q.active.less = func(a, b *queuedPod) bool {
		pa, pb := podPriority(a.pod), podPriority(b.pod)
		if pa != pb {
			return pa > pb
		}
		if !a.timestamp.Equal(b.timestamp) {
			return a.timestamp.Before(b.timestamp)
		}
		// Pods moved back together (one event, one flush) entered at the
		// same instant: by name, so that the order does not depend on
		// the map they were kept in.
		if a.pod.Namespace != b.pod.Namespace {
			return a.pod.Namespace < b.pod.Namespace
		}
		return a.pod.Name < b.pod.Name
	}
	q.backoff.less = func(a, b *queuedPod) bool { return q.backoffUntil(a).Before(q.backoffUntil(b)) }
	q.cond = sync.NewCond(&q.mu)
	return q
}

func podPriority(p *corev1.Pod) int32 {
	if p.Spec.Priority != nil {
		return *p.Spec.Priority
	}
	return 0
}

// backoffDuration is initialBackoff doubled for each failed attempt after
// the first, up to maxBackoff.
func (q *queue) backoffDuration(attempts int) time.Duration {
	d := q.initialBackoff
	for i := 1; i < attempts && d < q.maxBackoff; i++ {
		d *= 2
	}
	return min(d, q.maxBackoff)
}

func (q *queue) backoffUntil(p *queuedPod) time.Time {
	if p.attempts == 0 {
		return p.timestamp
	}
	return p.timestamp.Add(q.backoffDuration(p.attempts))
}

// add takes a pending pod the queue does not hold yet into the active
// queue; a pod it holds is updated (see updateLocked).
func (q *queue) add(pod *corev1.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if p, ok := q.pods[pod.UID]; ok {
		q.updateLocked(p, pod)
		return
	}
	p := &queuedPod{pod: pod, timestamp: q.now()}
	q.pods[pod.UID] = p
	q.push(p, inActive)
}

// updateLocked gives the queue the pod's new object. A pod in the
// unschedulable pool whose spec or labels changed is tried again: the
// change may be what it lacked (a toleration added, a request lowered).
func (q *queue) updateLocked(p *queuedPod, pod *corev1.Pod) {
	old := p.pod
	p.pod = pod
	switch p.where {
	case inActive:
		heap.Fix(&q.active, p.index)
	case inUnschedulable:
		if schedulingInputChanged(old, pod) {
			delete(q.pool, pod.UID)
			q.requeue(p)
		}
	}
}

// remove forgets a pod that was deleted, bound by someone else or no
// longer this scheduler's.
func (q *queue) remove(uid types.UID) {
	q.mu.Lock()
	defer q.mu.Unlock()
	p, ok := q.pods[uid]
	if !ok {
		return
	}
	delete(q.pods, uid)
	switch p.where {
	case inActive:
		heap.Remove(&q.active, p.index)
	case inBackoff:
		heap.Remove(&q.backoff, p.index)
	case inUnschedulable:
		delete(q.pool, uid)
	}
}

// pop returns the first pod of the active queue, waiting for one; nil when
// the queue is closed or a flush passed without one, so that the caller
// can tend to its cache. The pod is in flight until done, unschedulable or
// failed is called for it.
func (q *queue) pop() *queuedPod {
	q.mu.Lock()
	defer q.mu.Unlock()
	ticks := q.ticks
	for q.active.Len() == 0 {
		if q.closed || q.ticks != ticks {
			return nil
		}
		q.cond.Wait()
	}
	p := heap.Pop(&q.active).(*queuedPod)
	q.cycle++
	p.cycle = q.cycle
	p.where = inFlight
	return p
}

// done forgets a pod that was bound.
func (q *queue) done(uid types.UID) { q.remove(uid) }

// unschedulable puts back a pod that fits no node: into the pool, or into
// backoff when an event that may have made it fit came while it was tried.
func (q *queue) unschedulable(uid types.UID) {
	q.mu.Lock()
	defer q.mu.Unlock()
	p := q.attempted(uid)
	if p == nil {
		return
	}
	if q.moveCycle >= p.cycle {
		q.push(p, inBackoff)
		return
	}
	p.where = inUnschedulable
	q.pool[uid] = p
}

// failed puts back a pod whose attempt failed for a reason other than
// fitting nowhere (its Binding was refused): into backoff.
func (q *queue) failed(uid types.UID) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if p := q.attempted(uid); p != nil {
		q.push(p, inBackoff)
	}
}

// attempted counts a failed attempt of the pod being tried and restarts its
// time in the queue, which its backoff counts from; nil when the pod is not
// being tried (deleted, or bound, meanwhile). q.mu is held.
func (q *queue) attempted(uid types.UID) *queuedPod {
	p, ok := q.pods[uid]
	if !ok || p.where != inFlight {
		return nil
	}
	p.attempts++
	p.timestamp = q.now()
	return p
}

// move brings back the unschedulable pods that the event may have made
// schedulable (all of them when may is nil): into the active queue, or into
// backoff while their backoff lasts.
func (q *queue) move(may func(*corev1.Pod) bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.moveCycle = q.cycle
	for uid, p := range q.pool {
		if may == nil || may(p.pod) {
			delete(q.pool, uid)
			q.requeue(p)
		}
	}
}

// requeue puts a pod taken from the pool where its backoff says.
func (q *queue) requeue(p *queuedPod) {
	if q.now().Before(q.backoffUntil(p)) {
		q.push(p, inBackoff)
		return
	}
	q.push(p, inActive)
}

func (q *queue) push(p *queuedPod, where int) {
	p.where = where
	switch where {
	case inActive:
		heap.Push(&q.active, p)
		q.cond.Broadcast()
	case inBackoff:
		heap.Push(&q.backoff, p)
	}
}

// flushBackoff moves the pods whose backoff completed to the active queue.
func (q *queue) flushBackoff() {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.now()
	for q.backoff.Len() > 0 && !now.Before(q.backoffUntil(q.backoff.pods[0])) {
		p := heap.Pop(&q.backoff).(*queuedPod)
		q.push(p, inActive)
	}
	q.ticks++
	q.cond.Broadcast()
}

// flushUnschedulable moves the pods that stayed in the pool longer than
// maxInUnschedulable.
func (q *queue) flushUnschedulable() {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.now()
	for uid, p := range q.pool {
		if now.Sub(p.timestamp) > maxInUnschedulable {
			delete(q.pool, uid)
			q.requeue(p)
		}
	}
}

// run flushes until stop is closed, then closes the queue.
func (q *queue) run(stop <-chan struct{}) {
	backoff := time.NewTicker(backoffFlushEvery)
	defer backoff.Stop()
	unsched := time.NewTicker(unschedulableFlushEvery)
	defer unsched.Stop()
	for {
		select {
		case <-stop:
			q.mu.Lock()
			q.closed = true
			q.cond.Broadcast()
			q.mu.Unlock()
			return
		case <-backoff.C:
			q.flushBackoff()
		case <-unsched.C:
			q.flushUnschedulable()
		}
	}
}

// lengths returns how many pods each part holds, for the metrics.
func (q *queue) lengths() (active, backoff, unschedulable int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.active.Len(), q.backoff.Len(), len(q.pool)
}

// podHeap is a heap of queued pods by less.
type podHeap struct {
	pods []*queuedPod
	less func(a, b *queuedPod) bool
}

func (h *podHeap) Len() int           { return len(h.pods) }
func (h *podHeap) Less(i, j int) bool { return h.less(h.pods[i], h.pods[j]) }
func (h *podHeap) Swap(i, j int) {
	h.pods[i], h.pods[j] = h.pods[j], h.pods[i]
	h.pods[i].index, h.pods[j].index = i, j
}
func (h *podHeap) Push(x any) {
	p := x.(*queuedPod)
	p.index = len(h.pods)
	h.pods = append(h.pods, p)
}
func (h *podHeap) Pop() any {
	n := len(h.pods)
	p := h.pods[n-1]
	h.pods[n-1] = nil
	h.pods = h.pods[:n-1]
	return p
}
