package kube

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

// RunLock is a Lease that makes the runs that evict take turns: a CronJob's
// run, the next tick while it is still running, a run from a laptop. Two
// runs that each evict up to the limits would together exceed them.
//
// Unlike leader election it never waits: a run that finds the Lease held
// has nothing to do, since the holder is already doing it. A run that
// crashed stops renewing, and its Lease expires after Duration.
type RunLock struct {
	Client    kubernetes.Interface
	Namespace string
	Name      string
	// Identity names this run in the Lease: who holds it, for the run that
	// finds it held.
	Identity string
	// Duration is how long the Lease is valid without a renewal; it is
	// renewed every third of it.
	Duration time.Duration
	// Now is the clock; nil: time.Now.
	Now func() time.Time
}

// HeldError is Acquire's answer when another run holds the Lease.
type HeldError struct {
	Lease  string
	Holder string
	// Since is when the holder took the Lease, Renewed when it last
	// renewed it.
	Since, Renewed time.Time
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("another run holds the Lease %s: %s, since %s (renewed %s)", e.Lease, e.Holder,
		e.Since.UTC().Format(time.RFC3339), e.Renewed.UTC().Format(time.RFC3339))
}

// DeniedError is Acquire's answer when RBAC (or admission) forbids a call
// the Lease needs: the run must not evict, since it cannot know it is alone.
type DeniedError struct {
	Lease, Namespace, Name string
	// Verb is the call that was forbidden: get, create or update.
	Verb string
	Err  error
}

func (e *DeniedError) Error() string {
	return fmt.Sprintf("taking the run Lease %s: %v (the identity rebalancer runs as lacks %s on leases.coordination.k8s.io %q in namespace %s; "+
		"`rebalancer rbac run` lists what a run needs); nothing was evicted", e.Lease, e.Err, e.Verb, e.Name, e.Namespace)
}

func (e *DeniedError) Unwrap() error { return e.Err }

// Held is the Lease while a run holds it.
type Held struct {
	lock   *RunLock
	lease  *resourcelock.LeaseLock
	record resourcelock.LeaderElectionRecord
	// lost is closed when a renewal fails: the run must stop evicting.
	lost     chan struct{}
	lostErr  error
	stop     chan struct{}
	stopped  chan struct{}
	stopOnce sync.Once
}

func (l *RunLock) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

func (l *RunLock) lease() string { return l.Namespace + "/" + l.Name }

// Acquire takes the Lease, or returns a *HeldError when another run holds
// it and it has not expired. The Lease is renewed until Release.
func (l *RunLock) Acquire(ctx context.Context) (*Held, error) {
	lease := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: l.Namespace, Name: l.Name},
		Client:     l.Client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: l.Identity},
	}
	now := metav1.NewTime(l.now())
	record := resourcelock.LeaderElectionRecord{
		HolderIdentity:       l.Identity,
		LeaseDurationSeconds: int(l.Duration.Round(time.Second) / time.Second),
		AcquireTime:          now,
		RenewTime:            now,
	}
	verb := "get"
	old, _, err := lease.Get(ctx)
	switch {
	case apierrors.IsNotFound(err):
		verb = "create"
		err = lease.Create(ctx, record)
	case err != nil:
	case old.HolderIdentity != "" && old.HolderIdentity != l.Identity &&
		old.RenewTime.Add(time.Duration(old.LeaseDurationSeconds)*time.Second).After(now.Time):
		return nil, &HeldError{Lease: l.lease(), Holder: old.HolderIdentity, Since: old.AcquireTime.Time, Renewed: old.RenewTime.Time}
	default:
		// Free, released, or expired: a crashed run's Lease.
		if old.HolderIdentity != "" && old.HolderIdentity != l.Identity {
			klog.InfoS("Taking over an expired run Lease", "lease", l.lease(), "previousHolder", old.HolderIdentity,
				"renewed", old.RenewTime.UTC().Format(time.RFC3339))
		}
		record.LeaderTransitions = old.LeaderTransitions + 1
		verb = "update"
		err = lease.Update(ctx, record)
	}
	if err != nil {
		// Two runs that found the Lease free at once: the one whose write
		// lost the race finds it held.
		if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
			if cur, _, gerr := lease.Get(ctx); gerr == nil {
				return nil, &HeldError{Lease: l.lease(), Holder: cur.HolderIdentity, Since: cur.AcquireTime.Time, Renewed: cur.RenewTime.Time}
			}
		}
		if apierrors.IsForbidden(err) {
			return nil, &DeniedError{Lease: l.lease(), Namespace: l.Namespace, Name: l.Name, Verb: verb, Err: err}
		}
		return nil, fmt.Errorf("taking the run Lease %s: %w", l.lease(), err)
	}
	h := &Held{lock: l, lease: lease, record: record, lost: make(chan struct{}), stop: make(chan struct{}), stopped: make(chan struct{})}
	go h.renew()
	return h, nil
}

// Lost is closed when the Lease could not be renewed; Err then says why.
func (h *Held) Lost() <-chan struct{} { return h.lost }

// Err is why the Lease was lost; nil while it is held.
func (h *Held) Err() error {
	select {
	case <-h.lost:
		return h.lostErr
	default:
		return nil
	}
}

func (h *Held) renew() {
	defer close(h.stopped)
	every := h.lock.Duration / 3
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), every)
		h.record.RenewTime = metav1.NewTime(h.lock.now())
		err := h.lease.Update(ctx, h.record)
		cancel()
		if err != nil {
			// Another run may hold it now (a conflict), or the API server
			// is gone: either way this run no longer knows it is alone.
			h.lostErr = fmt.Errorf("lost the Lease %s: %w", h.lock.lease(), err)
			var status apierrors.APIStatus
			if !errors.As(err, &status) {
				h.lostErr = fmt.Errorf("lost the Lease %s: API server unreachable: %w", h.lock.lease(), err)
			}
			close(h.lost)
			return
		}
	}
}

// Release stops renewing and gives the Lease back, so that the next run
// need not wait for it to expire.
func (h *Held) Release(ctx context.Context) error {
	h.stopOnce.Do(func() { close(h.stop) })
	<-h.stopped
	if h.Err() != nil {
		return nil // not ours any more
	}
	now := metav1.NewTime(h.lock.now())
	// As leader election releases: no holder, and a Lease that has
	// expired already.
	released := resourcelock.LeaderElectionRecord{LeaseDurationSeconds: 1, AcquireTime: now, RenewTime: now,
		LeaderTransitions: h.record.LeaderTransitions}
	if err := h.lease.Update(ctx, released); err != nil {
		return fmt.Errorf("releasing the Lease %s: %w", h.lock.lease(), err)
	}
	return nil
}

// IsHeld tells whether err says that another run holds the Lease.
func IsHeld(err error) bool {
	var held *HeldError
	return errors.As(err, &held)
}
