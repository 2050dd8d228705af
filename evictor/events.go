package evictor

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
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

func (e *Events) record(m planner.Move, eventType, reason, note string) {
	ns, name, _ := strings.Cut(m.Pod, "/")
	ref := &corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: ns, Name: name, UID: m.UID}
	e.recorded.Add(1)
	e.recorder.Event(ref, eventType, reason, note)
}

// Flush waits until every recorded event has been written, or until the
// timeout, then stops the broadcaster. It returns how many events were
// written and how many were recorded.
func (e *Events) Flush(timeout time.Duration) (written, recorded int64) {
	deadline := time.Now().Add(timeout)
	for e.sink.written.Load() < e.recorded.Load() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	e.broadcaster.Shutdown()
	written, recorded = e.sink.written.Load(), e.recorded.Load()
	if written < recorded {
		klog.InfoS("Some events were not written before the deadline", "written", written, "recorded", recorded)
	}
	return written, recorded
}

// countingSink counts the events the API server accepted.
type countingSink struct {
	record.EventSink
	written atomic.Int64
}

func (s *countingSink) Create(e *corev1.Event) (*corev1.Event, error) {
	out, err := s.EventSink.Create(e)
	if err == nil {
		s.written.Add(1)
	}
	return out, err
}

func (s *countingSink) Update(e *corev1.Event) (*corev1.Event, error) {
	out, err := s.EventSink.Update(e)
	if err == nil {
		s.written.Add(1)
	}
	return out, err
}

func (s *countingSink) Patch(old *corev1.Event, data []byte) (*corev1.Event, error) {
	out, err := s.EventSink.Patch(old, data)
	if err == nil {
		s.written.Add(1)
	}
	return out, err
}
