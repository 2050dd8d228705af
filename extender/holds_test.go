package extender

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// holdServer is testServer whose pods of ReplicaSet big-5c6d7 are of
// Deployment big, which no intent names.
func holdServer() *Server {
	s := testServer()
	steered := s.Workload
	s.Workload = func(p *corev1.Pod) cluster.Workload {
		if len(p.OwnerReferences) == 1 && p.OwnerReferences[0].Name == "big-5c6d7" {
			return cluster.Workload{Kind: "Deployment", Namespace: "shop", Name: "big"}
		}
		return steered(p)
	}
	s.Intents.SetHolds([]cluster.Hold{{Pod: "shop/big-0", UID: "uid-big-0", Node: "node-b", Strategy: "DefragmentForPendingPods", At: now}})
	return s
}

// pendingPod is a pod of shop's Deployment big (another workload than
// web, whose replacements the test server steers) at a priority.
func pendingPod(name string, priority int32) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, UID: types.UID("uid-" + name),
		OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "big-5c6d7", Controller: ptr(true)}}},
		Spec: corev1.PodSpec{Priority: &priority}}
}

// A run freed node-b for shop/big-0 (priority 0) and holds it: the pod
// goes there, and kube-scheduler finds node-b infeasible for every other
// pod of no higher priority, until the hold is over.
func TestFilterHoldsTheFreedNode(t *testing.T) {
	daemon := pendingPod("agent-x", 0)
	daemon.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "agent", Controller: ptr(true)}}
	all := []string{"node-a", "node-b", "node-c"}
	tests := []struct {
		name       string
		pod        *corev1.Pod
		candidates []string
		// over: the hold's pod is bound or gone; at: when the request
		// comes, from now.
		over       bool
		at         time.Duration
		wantNodes  []string
		wantFailed []string
		wantTop    string
	}{
		{name: "the held pod goes to the held node", pod: pendingPod("big-0", 0), candidates: all,
			wantNodes: []string{"node-b"}, wantFailed: []string{"node-a", "node-c"}, wantTop: "node-b"},
		{name: "the held pod where the held node is not feasible keeps every candidate", pod: pendingPod("big-0", 0),
			candidates: []string{"node-a", "node-c"}, wantNodes: []string{"node-a", "node-c"}, wantTop: "node-b"},
		{name: "a pod of the same priority is kept off the held node", pod: pendingPod("other", 0), candidates: all,
			wantNodes: []string{"node-a", "node-c"}, wantFailed: []string{"node-b"}},
		{name: "a pod of lower priority is kept off the held node", pod: pendingPod("other", -5), candidates: all,
			wantNodes: []string{"node-a", "node-c"}, wantFailed: []string{"node-b"}},
		{name: "a replacement steered elsewhere stays steered", pod: replacement("web-7d9f8-new01"), candidates: all,
			wantNodes: []string{"node-c"}, wantFailed: []string{"node-a", "node-b"}, wantTop: "node-c"},
		{name: "a pod of higher priority is not kept off", pod: pendingPod("urgent", 100), candidates: all, wantNodes: all},
		{name: "a DaemonSet's pod is not kept off", pod: daemon, candidates: []string{"node-b"}, wantNodes: []string{"node-b"}},
		{name: "once the held pod is bound, nothing is held", pod: pendingPod("other", 0), candidates: all, over: true, wantNodes: all},
		{name: "past the TTL, nothing is held", pod: pendingPod("other", 0), candidates: all, at: 11 * time.Minute, wantNodes: all},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := holdServer()
			s.HoldOver = func(cluster.Hold) bool { return tt.over }
			s.Now = func() time.Time { return now.Add(tt.at) }
			h := s.Handler()
			rec := call(t, h, FilterPath, extenderv1.ExtenderArgs{Pod: tt.pod, NodeNames: &tt.candidates})
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			var res extenderv1.ExtenderFilterResult
			if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil {
				t.Fatal(err)
			}
			if res.NodeNames == nil || !reflect.DeepEqual(*res.NodeNames, tt.wantNodes) {
				t.Errorf("nodes %v, want %v", res.NodeNames, tt.wantNodes)
			}
			var failed []string
			for _, n := range tt.candidates {
				if why, ok := res.FailedNodes[n]; ok {
					failed = append(failed, n)
					if why == "" {
						t.Errorf("node %s failed without a reason", n)
					}
				}
			}
			if !reflect.DeepEqual(failed, tt.wantFailed) {
				t.Errorf("failed nodes %v, want %v (%v)", failed, tt.wantFailed, res.FailedNodes)
			}
			var prio extenderv1.HostPriorityList
			if err := json.Unmarshal(call(t, h, PrioritizePath, extenderv1.ExtenderArgs{Pod: tt.pod, NodeNames: &tt.candidates}).Body.Bytes(), &prio); err != nil {
				t.Fatal(err)
			}
			top := ""
			for _, hp := range prio {
				if hp.Score == extenderv1.MaxExtenderPriority {
					top = hp.Host
				}
			}
			if want := tt.wantTop; want != "" && !slices.Contains(tt.candidates, want) {
				tt.wantTop = ""
			}
			if top != tt.wantTop {
				t.Errorf("top score on %q, want %q", top, tt.wantTop)
			}
		})
	}
}

// Whole nodes in the request (no nodeCacheCapable) come back whole, less
// the held one.
func TestFilterHoldsTheFreedNodeOfWholeNodes(t *testing.T) {
	s := holdServer()
	nodes := &corev1.NodeList{Items: []corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}, {ObjectMeta: metav1.ObjectMeta{Name: "node-b"}}}}
	rec := call(t, s.Handler(), FilterPath, extenderv1.ExtenderArgs{Pod: pendingPod("other", 0), Nodes: nodes})
	var res extenderv1.ExtenderFilterResult
	if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res.Nodes == nil || len(res.Nodes.Items) != 1 || res.Nodes.Items[0].Name != "node-a" || res.FailedNodes["node-b"] == "" {
		t.Errorf("answer %+v, want node-a only, node-b failed", res)
	}
}
