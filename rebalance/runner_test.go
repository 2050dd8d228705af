package rebalance

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/cluster/kube/kubetest"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/report"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// testConfig is a configuration that moves two of the imbalanced cluster's
// pods, keeping its history in the client, and records what it prints.
func testConfig(t *testing.T, client *fake.Clientset, printed **report.Report) Config {
	t.Helper()
	pol, err := policy.Load([]byte("apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\ncooldown: 0s\nlimits: {total: 2}\n"+
		"strategies:\n  LowNodeUtilization: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}\n"), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	placer, err := engine.New(profile.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	return Config{Client: client, Policy: pol, Placer: placer,
		History: &kube.HistoryStore{Client: client, Namespace: "rebalancer", Name: "rebalancer-state", Keep: time.Hour},
		Print:   func(rep *report.Report) error { *printed = rep; return nil }}
}

// The scheduler's hand-off must exist before the first eviction: the
// ReplicaSet controller recreates an evicted pod within milliseconds. And an
// eviction that did not happen leaves no record behind.
func TestEvictionsAreRecordedBeforeTheyAreMade(t *testing.T) {
	client := kubetest.Imbalanced()
	refused := "web-1"
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "eviction" && a.(k8stesting.CreateAction).GetObject().(*policyv1.Eviction).Name == refused {
			return true, nil, apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
		}
		return false, nil, nil
	})
	var printed *report.Report
	cfg := testConfig(t, client, &printed)
	if err := New(cfg).Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}

	recorded, firstEviction := -1, -1
	for i, a := range client.Actions() {
		if a.GetResource().Resource == "configmaps" && a.GetVerb() == "create" && recorded < 0 {
			recorded = i
		}
		if a.GetSubresource() == "eviction" && firstEviction < 0 {
			firstEviction = i
		}
	}
	if recorded < 0 || firstEviction < 0 || recorded > firstEviction {
		t.Errorf("state ConfigMap written at call %d, first eviction at call %d: the record must come first", recorded, firstEviction)
	}

	var results []string
	for _, m := range printed.Moves {
		results = append(results, m.Pod+"="+string(m.Result))
	}
	if got := strings.Join(results, ","); got != "shop/web-0=evicted,shop/web-1=refused" {
		t.Fatalf("results %s, want web-0 evicted and web-1 refused", got)
	}
	history, err := cfg.History.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(history) != 1 || history[0].Pod != "shop/web-0" || history[0].To == "" || history[0].Workload.Name != "web" {
		t.Errorf("history = %+v, want only the eviction that happened, with its target and workload", history)
	}
}

// A dry run changes nothing; when the history cannot be read, a real run
// stops before planning (it must not forget the cooldown) and a dry run plans
// anyway. An eviction forbidden for want of the permission fails the cycle;
// one that admission denies (a 403 for a permission the authorizer grants)
// is that move's result, and the cycle goes on.
func TestCycleOutcomes(t *testing.T) {
	tests := []struct {
		name string
		// failing is the verb and resource (subresource after a /) the
		// fake API server forbids.
		failing string
		// admitted: the authorizer grants the failing call, so that the
		// 403 is admission's.
		admitted bool
		dryRun   bool
		wantErr  string
		// wantMoves is the number of moves reported; 0: no report.
		wantMoves   int
		wantWrites  bool
		wantResults string
	}{
		{name: "real run", wantMoves: 2, wantWrites: true},
		{name: "dry run", dryRun: true, wantMoves: 2},
		{name: "real run, history unreadable", failing: "get configmaps", wantErr: "reading ConfigMap rebalancer/rebalancer-state"},
		{name: "dry run, history unreadable", failing: "get configmaps", dryRun: true, wantMoves: 2},
		{name: "eviction forbidden", failing: "create pods/eviction", wantErr: "lacks create on pods/eviction in namespace shop", wantMoves: 2, wantWrites: true},
		{name: "eviction denied by admission", failing: "create pods/eviction", admitted: true, wantMoves: 2, wantWrites: true, wantResults: "denied,denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := kubetest.Imbalanced()
			if tt.failing != "" {
				verb, resource, _ := strings.Cut(tt.failing, " ")
				resource, sub, _ := strings.Cut(resource, "/")
				client.PrependReactor(verb, resource, func(a k8stesting.Action) (bool, runtime.Object, error) {
					if a.GetSubresource() != sub {
						return false, nil, nil
					}
					return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: resource}, "", fmt.Errorf("%s refused", tt.failing))
				})
				client.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
					r := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).DeepCopy()
					attrs := r.Spec.ResourceAttributes
					r.Status.Allowed = tt.admitted || attrs.Verb != verb || attrs.Resource != resource || attrs.Subresource != sub
					return true, r, nil
				})
			}
			var printed *report.Report
			cfg := testConfig(t, client, &printed)
			cfg.DryRun = tt.dryRun
			err := New(cfg).Cycle(context.Background())
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Cycle() error = %v, want %q", err, tt.wantErr)
			}
			switch {
			case tt.wantMoves == 0 && printed != nil:
				t.Errorf("printed %+v, want no report", printed)
			case tt.wantMoves > 0 && (printed == nil || len(printed.Moves) != tt.wantMoves):
				t.Errorf("printed %+v, want a report of %d moves", printed, tt.wantMoves)
			}
			if tt.wantResults != "" {
				var results []string
				for _, m := range printed.Moves {
					results = append(results, string(m.Result))
				}
				if got := strings.Join(results, ","); got != tt.wantResults {
					t.Errorf("results %s, want %s", got, tt.wantResults)
				}
			}
			var writes []string
			for _, a := range client.Actions() {
				if v := a.GetVerb(); v != "get" && v != "list" && v != "watch" {
					writes = append(writes, v+" "+a.GetResource().Resource+"/"+a.GetSubresource())
				}
			}
			if wrote := len(writes) > 0; wrote != tt.wantWrites {
				t.Errorf("writes %v, want writes: %v", writes, tt.wantWrites)
			}
		})
	}
}
