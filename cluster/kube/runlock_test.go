package kube

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

var lockNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// lease is the Lease a run named holder left, renewed `ago` before lockNow.
func lease(holder string, ago time.Duration, seconds int32) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "rebalancer", Name: "rebalancer-state-lock"},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To(holder),
			LeaseDurationSeconds: ptr.To(seconds),
			AcquireTime:          &metav1.MicroTime{Time: lockNow.Add(-time.Hour)},
			RenewTime:            &metav1.MicroTime{Time: lockNow.Add(-ago)},
			LeaseTransitions:     ptr.To[int32](3),
		},
	}
}

func testLock(client *fake.Clientset, identity string) *RunLock {
	return &RunLock{Client: client, Namespace: "rebalancer", Name: "rebalancer-state-lock", Identity: identity,
		Duration: 30 * time.Second, Now: func() time.Time { return lockNow }}
}

func TestRunLockAcquire(t *testing.T) {
	tests := []struct {
		name     string
		existing *coordinationv1.Lease
		wantHeld bool
	}{
		{name: "no Lease yet: the first run creates it"},
		{name: "held by a run that renewed it 5s ago", existing: lease("cronjob-29123-abcde_1", 5*time.Second, 30), wantHeld: true},
		{name: "held by a run that stopped renewing a minute ago: it crashed", existing: lease("cronjob-29123-abcde_1", time.Minute, 30)},
		{name: "released by the last run", existing: lease("", 0, 1)},
		{name: "held by this very run", existing: lease("laptop_42", 5*time.Second, 30)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset()
			if tt.existing != nil {
				client = fake.NewClientset(tt.existing)
			}
			held, err := testLock(client, "laptop_42").Acquire(context.Background())
			var busy *HeldError
			if tt.wantHeld {
				if !errors.As(err, &busy) {
					t.Fatalf("Acquire() = %v, want the Lease held", err)
				}
				if busy.Holder != "cronjob-29123-abcde_1" || !busy.Since.Equal(lockNow.Add(-time.Hour)) || busy.Lease != "rebalancer/rebalancer-state-lock" {
					t.Errorf("HeldError = %+v, want the holder and since when", busy)
				}
				return
			}
			if err != nil {
				t.Fatalf("Acquire() = %v", err)
			}
			got, _ := client.CoordinationV1().Leases("rebalancer").Get(context.Background(), "rebalancer-state-lock", metav1.GetOptions{})
			if got.Spec.HolderIdentity == nil || *got.Spec.HolderIdentity != "laptop_42" || *got.Spec.LeaseDurationSeconds != 30 {
				t.Errorf("Lease spec after Acquire = %+v", got.Spec)
			}
			if err := held.Release(context.Background()); err != nil {
				t.Fatal(err)
			}
			// Released: the next run need not wait for it to expire.
			next, err := testLock(client, "cronjob-29124-fghij_1").Acquire(context.Background())
			if err != nil {
				t.Fatalf("Acquire() after Release = %v", err)
			}
			_ = next.Release(context.Background())
		})
	}
}

// A run that cannot renew its Lease learns it at once, so that it stops
// evicting before another run takes the Lease over.
func TestRunLockLostWhenRenewalFails(t *testing.T) {
	client := fake.NewClientset()
	var down atomic.Bool
	client.PrependReactor("update", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
		if !down.Load() {
			return false, nil, nil
		}
		return true, nil, apierrors.NewServiceUnavailable("etcd is down")
	})
	l := testLock(client, "laptop_42")
	l.Duration = 30 * time.Millisecond
	held, err := l.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	down.Store(true)
	select {
	case <-held.Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("the Lease was not reported lost")
	}
	if held.Err() == nil {
		t.Error("Err() = nil after the Lease was lost")
	}
	if err := held.Release(context.Background()); err != nil {
		t.Errorf("Release() of a lost Lease = %v, want nil: it is not ours to give back", err)
	}
}

// A run that RBAC forbids a call the Lease needs learns which one: the verb
// and the Lease are in the error, which is not the Lease being held.
func TestRunLockDenied(t *testing.T) {
	forbid := func(verb string) k8stesting.ReactionFunc {
		return func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(coordinationv1.Resource("leases"), "rebalancer-state-lock",
				errors.New(`User "system:serviceaccount:shop:laptop" cannot `+verb+` resource "leases"`))
		}
	}
	tests := []struct {
		name     string
		existing *coordinationv1.Lease
		verb     string
	}{
		{name: "get forbidden", verb: "get"},
		{name: "no Lease yet, create forbidden", verb: "create"},
		{name: "a released Lease, update forbidden", existing: lease("", 0, 1), verb: "update"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset()
			if tt.existing != nil {
				client = fake.NewClientset(tt.existing)
			}
			client.PrependReactor(tt.verb, "leases", forbid(tt.verb))
			_, err := testLock(client, "laptop_42").Acquire(context.Background())
			var denied *DeniedError
			if !errors.As(err, &denied) {
				t.Fatalf("Acquire() = %v, want a DeniedError", err)
			}
			if IsHeld(err) {
				t.Errorf("a denied Lease reads as held: the run would exit 0")
			}
			for _, want := range []string{"rebalancer/rebalancer-state-lock", "lacks " + tt.verb + " on leases", "nothing was evicted"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}
