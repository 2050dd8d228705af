package rebalance

import (
	"context"
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

	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/cluster/kube/kubetest"
	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/report"
)

// A run that finds another run's Lease does nothing at all, not even
// publish: the holder is doing the work and will publish it. A dry run
// takes no Lease and plans whatever holds it.
func TestCycleTakesTurnsOnTheRunLease(t *testing.T) {
	now := time.Now()
	held := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "rebalancer", Name: "rebalancer-state-lock"},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To("rebalancer-29123-abcde_1"),
			LeaseDurationSeconds: ptr.To[int32](30),
			AcquireTime:          &metav1.MicroTime{Time: now.Add(-time.Minute)},
			RenewTime:            &metav1.MicroTime{Time: now.Add(-time.Second)},
		},
	}
	tests := []struct {
		name      string
		dryRun    bool
		leaseHeld bool
		wantMoves int
		wantVerbs map[string]bool // verbs called on leases
	}{
		{name: "free: the run takes the Lease, evicts and gives it back", wantMoves: 2,
			wantVerbs: map[string]bool{"get": true, "create": true, "update": true}},
		{name: "held by another run: nothing", leaseHeld: true, wantVerbs: map[string]bool{"get": true}},
		{name: "dry run, held: it plans anyway and touches no Lease", dryRun: true, leaseHeld: true, wantMoves: 2, wantVerbs: map[string]bool{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := kubetest.Imbalanced()
			if tt.leaseHeld {
				if err := client.Tracker().Add(held.DeepCopy()); err != nil {
					t.Fatal(err)
				}
			}
			var printed *report.Report
			cfg := testConfig(t, client, &printed)
			cfg.DryRun = tt.dryRun
			cfg.Lock = &kube.RunLock{Client: client, Namespace: "rebalancer", Name: "rebalancer-state-lock", Identity: "laptop_42", Duration: 30 * time.Second}
			cfg.Publisher = &Publisher{Record: cfg.History}
			client.ClearActions()
			if err := New(cfg).Cycle(context.Background()); err != nil {
				t.Fatalf("Cycle() = %v", err)
			}
			if got := 0; printed != nil {
				got = len(printed.Moves)
				if got != tt.wantMoves {
					t.Errorf("%d moves, want %d", got, tt.wantMoves)
				}
			} else if tt.wantMoves > 0 {
				t.Errorf("no report, want %d moves", tt.wantMoves)
			}
			verbs := map[string]bool{}
			wroteState := false
			for _, a := range client.Actions() {
				switch a.GetResource().Resource {
				case "leases":
					verbs[a.GetVerb()] = true
				case "configmaps", "pods":
					if a.GetVerb() != "get" && a.GetVerb() != "list" {
						wroteState = true
					}
				}
			}
			for v := range tt.wantVerbs {
				if !verbs[v] {
					t.Errorf("no %s on the Lease; calls: %v", v, verbs)
				}
			}
			for v := range verbs {
				if !tt.wantVerbs[v] {
					t.Errorf("unexpected %s on the Lease", v)
				}
			}
			if tt.leaseHeld && !tt.dryRun && wroteState {
				t.Error("a run that found the Lease held wrote the state or evicted")
			}
		})
	}
}

// A run that loses its Lease mid-step stops evicting, and says so: the
// moves it did not make and its error name the lost Lease, not a signal.
func TestCycleLosingTheRunLeaseSaysSo(t *testing.T) {
	client := kubetest.Imbalanced()
	// The Lease on a client of its own: a fake client answers one call at
	// a time, and the renewals must go on during the slow eviction.
	leases := fake.NewClientset()
	var acquired atomic.Bool
	leases.PrependReactor("update", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
		if acquired.Load() {
			return true, nil, apierrors.NewServiceUnavailable("etcd is down")
		}
		return false, nil, nil
	})
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "eviction" {
			acquired.Store(true)
			time.Sleep(200 * time.Millisecond) // long enough for a renewal to fail
		}
		return false, nil, nil
	})
	var printed *report.Report
	cfg := testConfig(t, client, &printed)
	cfg.Lock = &kube.RunLock{Client: leases, Namespace: "kube-system", Name: "rebalancer-run-lock", Identity: "laptop_42", Duration: 60 * time.Millisecond}
	err := New(cfg).Cycle(context.Background())
	if err == nil || !strings.Contains(err.Error(), "lost the Lease kube-system/rebalancer-run-lock") || strings.Contains(err.Error(), "signal") {
		t.Errorf("Cycle() = %v, want it to say that the Lease was lost", err)
	}
	if printed == nil || len(printed.Moves) != 2 {
		t.Fatalf("report %+v, want both moves", printed)
	}
	if m := printed.Moves[1]; m.Result != evictor.NotAttempted || !strings.Contains(m.Message, "lost the Lease") {
		t.Errorf("second move: %s (%s), want not-attempted because the Lease was lost", m.Result, m.Message)
	}
}
