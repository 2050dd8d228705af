package evictor

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/planner"
)

// Event reasons rebalancer records on pods.
const (
	ReasonRebalanced = "Rebalanced"
	ReasonRefused    = "RebalanceRefused"
	ReasonDenied     = "RebalanceDenied"
	// ReasonRolledBack: a move by surge was undone, and the pod stays.
	ReasonRolledBack = "RebalanceRolledBack"
)

// Events records Kubernetes Events through client-go's event broadcaster,
// and can wait until they are written. A CronJob's process exits right after
// its last eviction; without Flush, the broadcaster's queue would die with it
// and the events users look for in `kubectl describe pod` would be lost.
type Events struct {
	broadcaster record.EventBroadcaster
	recorder    record.EventRecorder
	sink        *countingSink
	recorded    atomic.Int64
}

// NewEvents starts a broadcaster that writes to the API server as
// component "rebalancer".
func NewEvents(client kubernetes.Interface) *Events {
	sink := &countingSink{EventSink: &typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")}}
	b := record.NewBroadcaster()
	b.StartRecordingToSink(sink)
	return &Events{
		broadcaster: b,
		recorder:    b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "rebalancer"}),
		sink:        sink,
	}
}

// Evicted implements Recorder.
func (e *Events) Evicted(m planner.Move) {
	note := fmt.Sprintf("Evicted by rebalancer (%s): %s", m.Strategy, m.Reason)
	if m.To != "" {
		note += fmt.Sprintf("; replacement planned on %s", m.To)
	}
	e.record(m, corev1.EventTypeNormal, ReasonRebalanced, note)
}

// Refused implements Recorder.
func (e *Events) Refused(m planner.Move, message string) {
	e.record(m, corev1.EventTypeWarning, ReasonRefused,
		fmt.Sprintf("rebalancer (%s) could not evict the pod: %s", m.Strategy, message))
}

// Denied implements Recorder.
func (e *Events) Denied(m planner.Move, message string) {
	e.record(m, corev1.EventTypeWarning, ReasonDenied,
		fmt.Sprintf("rebalancer (%s) could not evict the pod, the API server denied it: %s", m.Strategy, message))
}

// Surged records that a move by surge is done: the pod leaves as its
// ReplicaSet scales down, its replacement already Ready.
func (e *Events) Surged(m planner.Move, message string) {
	e.record(m, corev1.EventTypeNormal, ReasonRebalanced,
		fmt.Sprintf("Moved by rebalancer (%s) by surge: %s; %s", m.Strategy, m.Reason, message))
}

// RolledBack records that a move by surge was undone.
func (e *Events) RolledBack(m planner.Move, message string) {
	e.record(m, corev1.EventTypeWarning, ReasonRolledBack,
		fmt.Sprintf("rebalancer (%s) could not move the pod by surge: %s", m.Strategy, message))
}

func (e *Events) record(m planner.Move, eventType, reason, note string) {
	ns, name, _ := strings.Cut(m.Pod, "/")
	ref := &corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: ns, Name: name, UID: m.UID}
	e.recorded.Add(1)
	e.recorder.Event(ref, eventType, reason, note)
}

// Flush waits until every recorded event has been written or refused, or
// until the timeout, then stops the broadcaster. It returns how many events
// were written and how many were recorded; Lost says what became of the
// others.
func (e *Events) Flush(timeout time.Duration) (written, recorded int64) {
	deadline := time.Now().Add(timeout)
	for e.sink.written.Load()+e.sink.refused.Load() < e.recorded.Load() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	e.broadcaster.Shutdown()
	written, recorded = e.sink.written.Load(), e.recorded.Load()
	if lost := e.Lost(); lost != nil {
		klog.ErrorS(nil, "Events were lost: the evictions happened, but the pods do not show them", "lost", lost.Lost,
			"recorded", lost.Recorded, "why", lost.Why)
	}
	return written, recorded
}

// Why an event was lost, the label of the metric that counts them.
const (
	// LostForbidden: the API server refused it for want of permission
	// (create on events).
	LostForbidden = "forbidden"
	// LostRejected: the API server refused it for another reason.
	LostRejected = "rejected"
	// LostUnwritten: it was not written before the flush ended (the API
	// server slow or unreachable).
	LostUnwritten = "unwritten"
)

// LostReasons are every reason an event can be lost, in order.
var LostReasons = []string{LostForbidden, LostRejected, LostUnwritten}

// EventsLost says how many of a run's events never reached the API server,
// and why. The evictions they describe happened all the same.
type EventsLost struct {
	Recorded int `json:"recorded"`
	Lost     int `json:"lost"`
	// Reasons counts the lost events by reason: forbidden, rejected,
	// unwritten.
	Reasons map[string]int `json:"reasons"`
	// Why is the API server's answer to the first refused one, or that
	// the rest were not written in time.
	Why string `json:"why"`
}

// Lost says what became of the events Flush did not see written; nil when
// every one was.
func (e *Events) Lost() *EventsLost {
	written, recorded := e.sink.written.Load(), e.recorded.Load()
	if written >= recorded {
		return nil
	}
	l := &EventsLost{Recorded: int(recorded), Lost: int(recorded - written), Reasons: map[string]int{}}
	var why []string
	e.sink.mu.Lock()
	for _, reason := range []string{LostForbidden, LostRejected} {
		if n := e.sink.refusals[reason]; n > 0 {
			l.Reasons[reason] = n
			why = append(why, e.sink.firstRefusal[reason])
		}
	}
	e.sink.mu.Unlock()
	if unwritten := l.Lost - l.Reasons[LostForbidden] - l.Reasons[LostRejected]; unwritten > 0 {
		l.Reasons[LostUnwritten] = unwritten
		why = append(why, fmt.Sprintf("%d not written before the run ended", unwritten))
	}
	l.Why = strings.Join(why, "; ")
	return l
}

// countingSink counts the events the API server accepted, and those it
// refused: the broadcaster never retries a refusal, and only logs it.
type countingSink struct {
	record.EventSink
	written atomic.Int64
	refused atomic.Int64

	mu           sync.Mutex
	refusals     map[string]int
	firstRefusal map[string]string
}

func (s *countingSink) Create(e *corev1.Event) (*corev1.Event, error) {
	out, err := s.EventSink.Create(e)
	s.count(err)
	return out, err
}

func (s *countingSink) Update(e *corev1.Event) (*corev1.Event, error) {
	out, err := s.EventSink.Update(e)
	s.count(err)
	return out, err
}

func (s *countingSink) Patch(old *corev1.Event, data []byte) (*corev1.Event, error) {
	out, err := s.EventSink.Patch(old, data)
	s.count(err)
	return out, err
}

func (s *countingSink) count(err error) {
	var status *apierrors.StatusError
	switch {
	case err == nil:
		s.written.Add(1)
		return
	case !errors.As(err, &status):
		return // no answer: the broadcaster tries again
	}
	reason, why := LostRejected, "the API server refused them: "+err.Error()
	if apierrors.IsForbidden(err) {
		reason = LostForbidden
		why = "the API server refused them: " + err.Error() +
			" (the identity rebalancer runs as lacks create on events; `rebalancer rbac run` lists it)"
	}
	s.mu.Lock()
	if s.refusals == nil {
		s.refusals, s.firstRefusal = map[string]int{}, map[string]string{}
	}
	if s.refusals[reason] == 0 {
		s.firstRefusal[reason] = why
	}
	s.refusals[reason]++
	s.mu.Unlock()
	s.refused.Add(1)
}
