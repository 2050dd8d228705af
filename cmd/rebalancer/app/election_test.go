package app

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// The work done while leading ends in one of three ways, and run returns
// its outcome only once the work has returned: a work still evicting after
// run returned (a signal, a lost Lease) would outlive the Lease, and its
// result would be read while being written (go test -race reports it).
func TestElectionWaitsForTheWork(t *testing.T) {
	failed := errors.New("a cycle failed")
	tests := []struct {
		name string
		// work is what the leader does; it ends when told to, or on its own.
		work   func(ctx context.Context) error
		signal bool // the process is stopped while the work runs
		want   error
	}{
		{
			name: "one cycle that succeeds: done, the Lease is given back",
			work: func(context.Context) error { return nil },
		},
		{
			name: "one cycle that fails: its error",
			work: func(context.Context) error { return failed },
			want: failed,
		},
		{
			name: "a signal while the work runs: run waits for it to stop, and returns its error",
			work: func(ctx context.Context) error {
				<-ctx.Done()
				time.Sleep(50 * time.Millisecond) // the last eviction's answer
				return failed
			},
			signal: true,
			want:   failed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			var started, returned atomic.Bool
			work := func(ctx context.Context) error {
				started.Store(true)
				if tt.signal {
					stop()
				}
				defer returned.Store(true)
				return tt.work(ctx)
			}
			e := electionFlags{enabled: true, namespace: stateNamespace, name: electionLease("run")}
			err := e.run(ctx, fake.NewClientset(), work)
			if !started.Load() {
				t.Fatal("the work never started")
			}
			if !returned.Load() {
				t.Error("run returned while the work was still running")
			}
			if !errors.Is(err, tt.want) {
				t.Errorf("run() = %v, want %v", err, tt.want)
			}
		})
	}
}

// A replica that can no longer renew its Lease stops its work and says
// that it lost the Lease: the work's context carries that as its cause,
// which the run reports, not as a signal.
func TestElectionLostLeaseIsTheCause(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the renew deadline")
	}
	client := fake.NewClientset()
	var leading atomic.Bool
	client.PrependReactor("update", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
		if leading.Load() {
			return true, nil, apierrors.NewServiceUnavailable("etcd is down")
		}
		return false, nil, nil
	})
	work := func(ctx context.Context) error {
		leading.Store(true)
		<-ctx.Done()
		return runtimeErr(context.Cause(ctx))
	}
	e := electionFlags{enabled: true, namespace: stateNamespace, name: electionLease("run")}
	err := e.run(context.Background(), client, work)
	if err == nil || !strings.Contains(err.Error(), "lost the Lease rebalancer/rebalancer-run") {
		t.Errorf("run() = %v, want it to say the Lease was lost", err)
	}
	if exitCode(err) != exitRuntime {
		t.Errorf("exit code %d, want %d", exitCode(err), exitRuntime)
	}
}
