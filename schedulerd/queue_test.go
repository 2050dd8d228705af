package schedulerd

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// clock is a hand-moved clock for the queue.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func pendingPod(name string, priority int32) *corev1.Pod {
	p := ct.Pod("shop", name).Priority(priority).Obj()
	p.UID = types.UID(name)
	return &p
}

// popNow pops what the active queue holds now, without waiting.
func popNow(q *queue) []string {
	var names []string
	for {
		q.mu.Lock()
		n := q.active.Len()
		q.mu.Unlock()
		if n == 0 {
			return names
		}
		names = append(names, q.pop().pod.Name)
	}
}

func TestQueueOrdersByPriorityThenByTimeInQueue(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	q := newQueue(0, 0, c.now)
	for _, p := range []struct {
		name     string
		priority int32
	}{{"low-early", 0}, {"high-late", 1000}, {"low-late", 0}, {"mid", 10}} {
		q.add(pendingPod(p.name, p.priority))
		c.t = c.t.Add(time.Millisecond)
	}
	want := []string{"high-late", "mid", "low-early", "low-late"}
	if got := popNow(q); !slices.Equal(got, want) {
		t.Errorf("popped %v, want %v", got, want)
	}
}

// A pod that keeps failing waits 1 s, 2 s, 4 s, 8 s, then 10 s each time:
// kube-scheduler's default podInitialBackoffSeconds and
// podMaxBackoffSeconds.
func TestQueueBackoffDoublesUpToTheMaximum(t *testing.T) {
	tests := []struct {
		name             string
		initial, maximum time.Duration
		want             []time.Duration
	}{
		{"defaults", 0, 0, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}},
		{"podInitialBackoffSeconds 2, podMaxBackoffSeconds 5", 2 * time.Second, 5 * time.Second, []time.Duration{2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &clock{t: time.Unix(1000, 0)}
			q := newQueue(tt.initial, tt.maximum, c.now)
			q.add(pendingPod("web", 0))
			for i, want := range tt.want {
				p := q.pop()
				q.failed(p.pod.UID)
				start := c.t
				c.t = start.Add(want - time.Millisecond)
				q.flushBackoff()
				if got := popNow(q); len(got) != 0 {
					t.Fatalf("attempt %d: tried again %v after failing, want %v", i+1, c.t.Sub(start), want)
				}
				c.t = start.Add(want)
				q.flushBackoff()
				q.mu.Lock()
				n := q.active.Len()
				q.mu.Unlock()
				if n != 1 {
					t.Fatalf("attempt %d: not back in the active queue %v after failing", i+1, want)
				}
			}
		})
	}
}

func TestQueueMovesUnschedulablePodsOnEvents(t *testing.T) {
	affine := pendingPod("affine", 0)
	affine.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{ct.AffinityTerm(corev1.LabelHostname, ct.Selector("app", "db"))},
	}}
	tests := []struct {
		name string
		// wait is how long after failing the event comes.
		wait time.Duration
		may  func(*corev1.Pod) bool
		// active and backoff are where the pods are afterwards; the others
		// stay unschedulable.
		active, backoff []string
	}{
		{name: "a node added after the backoff: every pod is tried", wait: 2 * time.Second, active: []string{"affine", "plain"}},
		{name: "a node added within the backoff: every pod waits it out", wait: 500 * time.Millisecond, backoff: []string{"affine", "plain"}},
		{name: "a pod bound: only pods with required pod affinity", wait: 2 * time.Second, may: hasRequiredPodAffinity, active: []string{"affine"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &clock{t: time.Unix(1000, 0)}
			q := newQueue(0, 0, c.now)
			q.add(affine)
			q.add(pendingPod("plain", 0))
			for _, p := range []*queuedPod{q.pop(), q.pop()} {
				q.unschedulable(p.pod.UID)
			}
			if a, b, u := q.lengths(); a != 0 || b != 0 || u != 2 {
				t.Fatalf("after failing: %d active, %d backoff, %d unschedulable; want both unschedulable", a, b, u)
			}
			c.t = c.t.Add(tt.wait)
			q.move(tt.may)
			if got := popNow(q); !slices.Equal(got, tt.active) {
				t.Errorf("active %v, want %v", got, tt.active)
			}
			var backoff []string
			for _, p := range q.backoff.pods {
				backoff = append(backoff, p.pod.Name)
			}
			slices.Sort(backoff)
			if !slices.Equal(backoff, tt.backoff) {
				t.Errorf("backoff %v, want %v", backoff, tt.backoff)
			}
		})
	}
}

// An event that comes while a pod is being tried may be the one that makes
// it fit: the pod goes to backoff, not to the pool where only another event
// would find it.
func TestQueueEventDuringAnAttemptSendsThePodToBackoff(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	q := newQueue(0, 0, c.now)
	q.add(pendingPod("web", 0))
	p := q.pop()
	q.move(nil)
	q.unschedulable(p.pod.UID)
	if a, b, u := q.lengths(); a != 0 || b != 1 || u != 0 {
		t.Errorf("%d active, %d backoff, %d unschedulable; want the pod in backoff", a, b, u)
	}
}

func TestQueueFlushesPodsLeftUnschedulableFiveMinutes(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	q := newQueue(0, 0, c.now)
	q.add(pendingPod("web", 0))
	q.unschedulable(q.pop().pod.UID)
	c.t = c.t.Add(maxInUnschedulable)
	q.flushUnschedulable()
	if _, _, u := q.lengths(); u != 1 {
		t.Fatalf("flushed after exactly %v, want after more", maxInUnschedulable)
	}
	c.t = c.t.Add(time.Second)
	q.flushUnschedulable()
	if got := popNow(q); !slices.Equal(got, []string{"web"}) {
		t.Errorf("active %v after %v unschedulable, want [web]", got, maxInUnschedulable+time.Second)
	}
}

// A pending pod whose spec changes may fit now; one whose status only
// changes (its PodScheduled condition) may not.
func TestQueueUpdateOfAnUnschedulablePod(t *testing.T) {
	tolerating := pendingPod("web", 0)
	tolerating.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
	conditioned := pendingPod("web", 0)
	conditioned.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse}}
	tests := []struct {
		name   string
		update *corev1.Pod
		moves  bool
	}{
		{"a toleration added", tolerating, true},
		{"its condition written", conditioned, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &clock{t: time.Unix(1000, 0)}
			q := newQueue(0, 0, c.now)
			q.add(pendingPod("web", 0))
			q.unschedulable(q.pop().pod.UID)
			c.t = c.t.Add(time.Minute)
			q.add(tt.update)
			if _, _, u := q.lengths(); (u == 0) != tt.moves {
				t.Errorf("moved out of the pool = %v, want %v", u == 0, tt.moves)
			}
		})
	}
}
