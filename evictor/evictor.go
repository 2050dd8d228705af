package evictor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/planner"
)

// Recorder records what the evictor did on the pods it touched.
type Recorder interface {
	Evicted(m planner.Move)
	Refused(m planner.Move, message string)
	Denied(m planner.Move, message string)
}

// Evictor executes plans.
type Evictor struct {
	Client kubernetes.Interface
	// GracePeriodSeconds, when set, overrides the pods' own grace period.
	GracePeriodSeconds *int64
	// Recorder, when set, records an event per evicted or refused pod.
	Recorder Recorder
	// Backoff paces the retries of an eviction that failed for a reason
	// other than a PodDisruptionBudget; Steps bounds the attempts. The zero
	// value means DefaultBackoff.
	Backoff wait.Backoff
}

// DefaultBackoff tries an eviction up to four times over about seven
// seconds: enough to ride out an API server restart or a leader change,
// short enough for a CronJob.
var DefaultBackoff = wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.1, Steps: 4}

// FatalError stops a run: every later eviction would fail the same way
// (no permission, no valid credentials, API server unreachable).
type FatalError struct{ Err error }

func (e *FatalError) Error() string { return e.Err.Error() }
func (e *FatalError) Unwrap() error { return e.Err }

// Execute carries out the moves in order and returns the outcome of each.
// When ctx ends (SIGTERM, the run Lease lost, --max-duration) the remaining
// moves are not attempted and Execute returns ctx's cause; after a fatal
// error, they are not attempted either, and the error is a *FatalError.
// Refused and gone pods are outcomes, not errors.
func (e *Evictor) Execute(ctx context.Context, plan *planner.Plan) ([]Outcome, error) {
	outcomes := make([]Outcome, 0, len(plan.Moves))
	var stop error
	for _, m := range plan.Moves {
		if stop == nil && ctx.Err() != nil {
			stop = context.Cause(ctx)
		}
		if stop != nil {
			outcomes = append(outcomes, Outcome{Move: m, Result: NotAttempted, Message: "run stopped: " + stop.Error()})
			continue
		}
		o, err := e.evict(ctx, m)
		outcomes = append(outcomes, o)
		if err != nil {
			stop = err
		}
	}
	return outcomes, stop
}

func (e *Evictor) evict(ctx context.Context, m planner.Move) (Outcome, error) {
	ns, name, _ := strings.Cut(m.Pod, "/")
	ev := &policyv1.Eviction{
		ObjectMeta:    metav1.ObjectMeta{Namespace: ns, Name: name},
		DeleteOptions: &metav1.DeleteOptions{GracePeriodSeconds: e.GracePeriodSeconds},
	}
	if m.UID != "" {
		// A StatefulSet recreates a pod under the same name: never evict a
		// pod other than the one that was planned.
		ev.DeleteOptions.Preconditions = &metav1.Preconditions{UID: &m.UID}
	}

	backoff := e.Backoff
	if backoff.Steps == 0 {
		backoff = DefaultBackoff
	}
	// Step consumes backoff.Steps; the number of attempts is fixed here.
	attempts := backoff.Steps
	var last error
	for attempt := 1; ; attempt++ {
		err := e.Client.PolicyV1().Evictions(ns).Evict(ctx, ev)
		switch {
		case err == nil:
			klog.InfoS("Evicted pod", "pod", m.Pod, "node", m.From, "strategy", m.Strategy, "plannedTarget", m.To)
			if e.Recorder != nil {
				e.Recorder.Evicted(m)
			}
			return Outcome{Move: m, Result: Evicted}, nil
		case isBudgetRefusal(err):
			msg := refusalMessage(err)
			klog.InfoS("Eviction refused by a PodDisruptionBudget", "pod", m.Pod, "message", msg)
			if e.Recorder != nil {
				e.Recorder.Refused(m, msg)
			}
			return Outcome{Move: m, Result: Refused, Message: msg}, nil
		case apierrors.IsNotFound(err):
			return Outcome{Move: m, Result: Gone, Message: "pod no longer exists"}, nil
		case apierrors.IsConflict(err):
			return Outcome{Move: m, Result: Gone, Message: "pod was replaced by another of the same name since the plan"}, nil
		case apierrors.IsForbidden(err):
			return e.forbidden(ctx, m, err)
		case isDenial(err):
			return e.denied(m, err), nil
		case apierrors.IsUnauthorized(err):
			return Outcome{Move: m, Result: Failed, Message: err.Error()},
				&FatalError{fmt.Errorf("evicting %s: %w (the API server does not accept rebalancer's credentials)", m.Pod, err)}
		case ctx.Err() != nil:
			return stopped(ctx, m)
		}
		last = err
		if attempt >= attempts {
			break
		}
		klog.V(1).InfoS("Eviction failed, retrying", "pod", m.Pod, "attempt", attempt, "err", err)
		select {
		case <-time.After(backoff.Step()):
		case <-ctx.Done():
			return stopped(ctx, m)
		}
	}
	o := Outcome{Move: m, Result: Failed, Message: last.Error()}
	var status apierrors.APIStatus
	if !errors.As(last, &status) {
		// No answer from the API server at all: later evictions would fail
		// the same way.
		return o, &FatalError{fmt.Errorf("evicting %s: API server unreachable: %w", m.Pod, last)}
	}
	klog.ErrorS(last, "Eviction failed", "pod", m.Pod, "attempts", attempts)
	return o, nil
}

// isBudgetRefusal tells the API server's PodDisruptionBudget refusal apart
// from throttling, which is also a 429.
func isBudgetRefusal(err error) bool {
	if !apierrors.IsTooManyRequests(err) {
		return false
	}
	if apierrors.HasStatusCause(err, policyv1.DisruptionBudgetCause) {
		return true
	}
	return strings.Contains(strings.ToLower(err.Error()), "disruption budget")
}

func refusalMessage(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		s := status.Status()
		if s.Details != nil {
			for _, c := range s.Details.Causes {
				if c.Type == policyv1.DisruptionBudgetCause {
					return s.Message + " " + c.Message
				}
			}
		}
		return s.Message
	}
	return err.Error()
}

// stopped is the outcome of a move that ctx's end kept from being made,
// with why ctx ended rather than the error of the request it cut short
// (the rate limiter's, say).
func stopped(ctx context.Context, m planner.Move) (Outcome, error) {
	cause := context.Cause(ctx)
	return Outcome{Move: m, Result: NotAttempted, Message: "run stopped: " + cause.Error()}, cause
}
