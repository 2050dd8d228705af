package rebalance

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/cluster/kube/kubetest"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/report"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// scatteredCluster is three nodes of 3 CPU with two pods of 750m each,
// and shop/big-0, pending for 3 CPU: only moves make room for it.
func scatteredCluster() *fake.Clientset {
	objs := ct.Objects(ct.DeploymentReplicaSet("shop", "web"), ct.DeploymentReplicaSet("shop", "big"))
	for i := range 3 {
		n := fmt.Sprintf("n%d", i)
		objs.Nodes = append(objs.Nodes, ct.Node(n).CPU("3").Obj())
		for _, s := range []string{"a", "b"} {
			objs.Pods = append(objs.Pods, ct.Pod("shop", "web-"+n+"-"+s).On(n).Requests("750m", "").Deployment("web").Obj())
		}
	}
	objs.Pods = append(objs.Pods, ct.Pod("shop", "big-0").Requests("3", "").Deployment("big").Unschedulable().Obj())
	client := kubetest.Clientset(objs)
	kubetest.EvictionsDeletePods(client)
	return client
}

func defragmentConfig(t *testing.T, client *fake.Clientset, printed **report.Report) Config {
	t.Helper()
	pol, err := policy.Load([]byte("apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\nimplicitBudgets: false\nstrategies:\n  DefragmentForPendingPods: {minPendingAge: 0s}\n"), "p.yaml")
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

func storedHolds(t *testing.T, client *fake.Clientset) []cluster.Hold {
	t.Helper()
	cm, err := client.CoreV1().ConfigMaps("rebalancer").Get(context.Background(), "rebalancer-state", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	holds, err := cluster.DecodeHolds(cm)
	if err != nil {
		t.Fatal(err)
	}
	return holds
}

// The node the moves free is held for the pending pod before the first
// of them is made, and held no more once the pod is bound.
func TestHoldIsRecordedBeforeTheMovesAndForgottenOnceBound(t *testing.T) {
	client := scatteredCluster()
	var printed *report.Report
	cfg := defragmentConfig(t, client, &printed)
	if err := New(cfg).Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(printed.Placements) != 1 || len(printed.Moves) != 2 {
		t.Fatalf("placements %+v, moves %+v; want shop/big-0 placed after two moves", printed.Placements, printed.Moves)
	}
	freed := printed.Placements[0].Node

	held, firstEviction := -1, -1
	for i, a := range client.Actions() {
		if a.GetSubresource() == "eviction" && firstEviction < 0 {
			firstEviction = i
		}
		// Creates and updates alike carry the object written.
		var obj any
		if w, ok := a.(interface{ GetObject() runtime.Object }); ok {
			obj = w.GetObject()
		}
		if cm, ok := obj.(*corev1.ConfigMap); ok && cm.Data["holds.json"] != "" && held < 0 {
			held = i
		}
	}
	if held < 0 || firstEviction < 0 || held > firstEviction {
		t.Errorf("hold written at call %d, first eviction at call %d: the hold must come first", held, firstEviction)
	}
	big, err := client.CoreV1().Pods("shop").Get(context.Background(), "big-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	holds := storedHolds(t, client)
	if len(holds) != 1 || holds[0].Pod != "shop/big-0" || holds[0].UID != big.UID || holds[0].Node != freed || holds[0].Strategy != "DefragmentForPendingPods" {
		t.Fatalf("holds %+v, want shop/big-0 (UID %s) on %s", holds, big.UID, freed)
	}

	// Still pending: the next run keeps the hold.
	if err := New(cfg).Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if holds := storedHolds(t, client); len(holds) != 1 {
		t.Errorf("holds %+v after a run that found the pod still pending; want it kept", holds)
	}

	big.Spec.NodeName = freed
	if _, err := client.CoreV1().Pods("shop").Update(context.Background(), big, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := New(cfg).Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if holds := storedHolds(t, client); len(holds) != 0 {
		t.Errorf("holds %+v after the pod bound; want none", holds)
	}
}

// A hold whose node no move freed is forgotten at the end of the run: the
// pod would wait for room that does not come.
func TestHoldIsForgottenWhenNoMoveFreedItsNode(t *testing.T) {
	client := scatteredCluster()
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "eviction" {
			return true, nil, apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
		}
		return false, nil, nil
	})
	var printed *report.Report
	cfg := defragmentConfig(t, client, &printed)
	if err := New(cfg).Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(printed.Placements) != 1 {
		t.Fatalf("placements %+v, want one", printed.Placements)
	}
	if holds := storedHolds(t, client); len(holds) != 0 {
		t.Errorf("holds %+v after every eviction was refused; want none", holds)
	}
}
