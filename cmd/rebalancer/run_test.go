package main

import (
	"context"
	"strings"
	"testing"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/report"
	"github.com/kube-rebalancer/rebalancer/scheduler"
)

// The scheduler's hand-off must exist before the first eviction: the
// ReplicaSet controller recreates an evicted pod within milliseconds. And an
// eviction that did not happen leaves no record behind.
func TestEvictionsAreRecordedBeforeTheyAreMade(t *testing.T) {
	client := imbalancedClient(t)
	refused := "web-1"
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "eviction" && a.(k8stesting.CreateAction).GetObject().(*policyv1.Eviction).Name == refused {
			return true, nil, apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
		}
		return false, nil, nil
	})
	pol, err := policy.Load([]byte("apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\ncooldown: 0s\nlimits: {total: 2}\n"+
		"strategies:\n  LowNodeUtilization: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}\n"), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	placer, err := scheduler.NewEngine(scheduler.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	store := &kube.HistoryStore{Client: client, Namespace: stateNamespace, Name: defaultStateName, Keep: time.Hour}
	var printed *report.Report
	r := &runner{opts: &runOptions{}, policy: pol, placer: placer, client: client, history: store, metrics: report.NewMetrics(),
		print: func(rep *report.Report) error { printed = rep; return nil }}
	if err := r.cycle(context.Background()); err != nil {
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
	history, err := store.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(history) != 1 || history[0].Pod != "shop/web-0" || history[0].To == "" || history[0].Workload.Name != "web" {
		t.Errorf("history = %+v, want only the eviction that happened, with its target and workload", history)
	}
}
