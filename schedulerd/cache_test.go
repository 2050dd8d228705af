package schedulerd

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// requestedCPU is the millicores the cache counts taken on the node.
func requestedCPU(c *podCache, node string) int64 {
	return c.snap.Node(node).Requested.Get(corev1.ResourceCPU)
}

// The life of an assumption, as kube-scheduler's cache has it: the node's
// resources are taken when the Binding is sent, given back when it fails
// or when the watch never shows the pod bound, and kept, now for real,
// when the watch shows it.
func TestCacheAssumption(t *testing.T) {
	start := time.Unix(1000, 0)
	n1 := ct.Node("n1").CPU("4").Obj()
	pending := ct.Pod("shop", "web").Requests("1", "").Obj()
	pending.UID = types.UID("web")
	boundObj := pending
	boundObj.Spec.NodeName = "n1"
	statusOnly := pending
	statusOnly.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse}}

	tests := []struct {
		name string
		// after the pod is assumed on n1
		then []change
		at   time.Time
		// wantCPU is what n1 has taken afterwards; assumed whether the
		// assumption is still held.
		wantCPU int64
		assumed bool
	}{
		{name: "assumed while the Binding is in flight", at: start.Add(time.Hour), wantCPU: 1000, assumed: true},
		{name: "the Binding failed: forgotten", then: []change{{bindFailed: "web"}}, at: start, wantCPU: 0},
		{name: "the watch shows it bound: confirmed", then: []change{{bound: "web", at: start}, {pod: &boundObj}}, at: start.Add(time.Hour), wantCPU: 1000},
		{name: "an update that does not bind it keeps it assumed", then: []change{{bound: "web", at: start}, {pod: &statusOnly}}, at: start.Add(time.Second), wantCPU: 1000, assumed: true},
		{name: "bound but never confirmed: held until it expires", then: []change{{bound: "web", at: start}}, at: start.Add(assumeTTL), wantCPU: 1000, assumed: true},
		{name: "bound but never confirmed: expired", then: []change{{bound: "web", at: start}}, at: start.Add(assumeTTL + time.Second), wantCPU: 0},
		{name: "the pod deleted: forgotten", then: []change{{pod: &pending, deleted: true}}, at: start, wantCPU: 0},
		{name: "the node deleted and back: held there again", then: []change{{node: &n1, deleted: true}, {node: &n1}}, at: start, wantCPU: 1000, assumed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newPodCache(func(string, string) *metav1.OwnerReference { return nil })
			c.push(change{node: &n1})
			c.push(change{pod: &pending})
			c.apply(start)
			if err := c.assume(c.snap.Pod("shop/web"), "n1"); err != nil {
				t.Fatal(err)
			}
			if got := requestedCPU(c, "n1"); got != 1000 {
				t.Fatalf("assumed: n1 has %dm taken, want 1000m", got)
			}
			for _, ch := range tt.then {
				c.push(ch)
			}
			c.apply(tt.at)
			if got := requestedCPU(c, "n1"); got != tt.wantCPU {
				t.Errorf("n1 has %dm taken, want %dm", got, tt.wantCPU)
			}
			if _, ok := c.assumed["web"]; ok != tt.assumed {
				t.Errorf("assumed = %v, want %v", ok, tt.assumed)
			}
		})
	}
}
