package schedulerd

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/cluster/kube"
)

func waitingPod(name, cpu string, priority int32) *ct.PodBuilder {
	return ct.Pod("shop", name).Requests(cpu, "").Deployment(name).Edit(func(p *corev1.Pod) {
		p.UID = types.UID("uid-" + p.Name)
		p.Spec.SchedulerName = "rebalancer"
		p.Spec.Priority = &priority
		p.Status = corev1.PodStatus{Phase: corev1.PodPending}
	})
}

// A run freed n2 for shop/big-0 and holds it there: the pod binds to n2,
// and a pod of the same priority that fits nowhere else waits, as for a
// pod kube-scheduler nominated to n2; one of higher priority is not kept
// off it.
func TestLiveHoldsTheFreedNodeForThePendingPod(t *testing.T) {
	tests := []struct {
		name string
		// other is the competing pod's priority.
		other     int32
		wantOther string
		// ttl: the hold is past the hand-off TTL.
		expired bool
	}{
		{name: "same priority: the competitor waits", other: 0},
		{name: "lower priority: the competitor waits", other: -10},
		{name: "higher priority: the competitor is not kept off", other: 10, wantOther: "n2"},
		{name: "a hold past the TTL holds nothing", other: 0, expired: true, wantOther: "n2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := time.Now()
			if tt.expired {
				at = at.Add(-time.Hour)
			}
			hold := cluster.Hold{Pod: "shop/big-0", UID: "uid-big-0", Node: "n2", Strategy: "DefragmentForPendingPods", At: at}
			record := func(client *fake.Clientset) {
				store := &kube.HistoryStore{Client: client, Namespace: "rebalancer", Name: "rebalancer-state", Keep: time.Hour}
				if err := store.RecordHolds(context.Background(), []cluster.Hold{hold}); err != nil {
					t.Fatal(err)
				}
			}
			objs := []any{ct.Node("n1"), ct.Node("n2"), ct.Node("n3"),
				ct.Pod("shop", "filler-1").On("n1").Requests("2", ""), ct.Pod("shop", "filler-3").On("n3").Requests("2", ""),
				waitingPod("a-other", "3", tt.other)}
			if !tt.expired {
				// The competitor is first in the queue: the hold, not the
				// queue's order, keeps the room.
				objs = append(objs, waitingPod("big-0", "3", 0))
			}
			client := liveClusterReacting(t, record, objs...)
			if tt.wantOther != "" {
				if got := waitForPod(t, client, "shop", "a-other", bound).Spec.NodeName; got != tt.wantOther {
					t.Errorf("competitor bound to %s, want %s", got, tt.wantOther)
				}
				return
			}
			if got := waitForPod(t, client, "shop", "big-0", bound).Spec.NodeName; got != "n2" {
				t.Errorf("held pod bound to %s, want n2, the node held for it", got)
			}
			// The competitor was decided, and found no room.
			waitForPod(t, client, "shop", "a-other", func(p *corev1.Pod) bool {
				return len(p.Status.Conditions) > 0 && p.Status.Conditions[0].Reason == corev1.PodReasonUnschedulable
			})
			if p := waitForPod(t, client, "shop", "a-other", func(*corev1.Pod) bool { return true }); p.Spec.NodeName != "" {
				t.Errorf("competitor bound to %s, want it pending", p.Spec.NodeName)
			}
		})
	}
}

// The held node is still being freed when the pods are first tried: the
// held pod fails there without losing its hold (nothing is written to its
// status.nominatedNodeName), and once the last moved pod is gone it binds
// there, ahead of a pod of the same priority that was waiting for the
// same room.
func TestLiveHoldOutlivesFailedAttempts(t *testing.T) {
	hold := cluster.Hold{Pod: "shop/big-0", UID: "uid-big-0", Node: "n2", Strategy: "DefragmentForPendingPods", At: time.Now()}
	var (
		mu          sync.Mutex
		nominations []string
	)
	record := func(client *fake.Clientset) {
		store := &kube.HistoryStore{Client: client, Namespace: "rebalancer", Name: "rebalancer-state", Keep: time.Hour}
		if err := store.RecordHolds(context.Background(), []cluster.Hold{hold}); err != nil {
			t.Fatal(err)
		}
		client.PrependReactor("patch", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
			if p := string(a.(k8stesting.PatchAction).GetPatch()); strings.Contains(p, "nominatedNodeName") {
				mu.Lock()
				nominations = append(nominations, a.(k8stesting.PatchAction).GetName()+": "+p)
				mu.Unlock()
			}
			return false, nil, nil
		})
	}
	client := liveClusterReacting(t, record, ct.Node("n1"), ct.Node("n2"), ct.Node("n3"),
		ct.Pod("shop", "filler-1").On("n1").Requests("2", ""), ct.Pod("shop", "filler-3").On("n3").Requests("2", ""),
		ct.Pod("shop", "leaving").On("n2").Requests("2", ""),
		waitingPod("a-other", "3", 0), waitingPod("big-0", "3", 0))
	for _, name := range []string{"a-other", "big-0"} {
		waitForPod(t, client, "shop", name, func(p *corev1.Pod) bool {
			return len(p.Status.Conditions) > 0 && p.Status.Conditions[0].Reason == corev1.PodReasonUnschedulable
		})
	}
	if err := client.CoreV1().Pods("shop").Delete(context.Background(), "leaving", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := waitForPod(t, client, "shop", "big-0", bound).Spec.NodeName; got != "n2" {
		t.Errorf("held pod bound to %s, want n2", got)
	}
	if p := waitForPod(t, client, "shop", "a-other", func(*corev1.Pod) bool { return true }); p.Spec.NodeName != "" {
		t.Errorf("competitor bound to %s, want it pending", p.Spec.NodeName)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(nominations) > 0 {
		t.Errorf("status.nominatedNodeName patched: %v; a hold is never written", nominations)
	}
}
