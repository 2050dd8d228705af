package schedulerd

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/volumebinding"
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
			if err := c.assume(c.snap.Pod("shop/web"), "n1", volumebinding.PodVolumes{}); err != nil {
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

// What VolumeBinding decided is assumed with the pod, so that the next pod
// does not take the same volume, and given back with it unless the
// informers have a newer copy by then.
func TestCacheAssumesThePodsVolumes(t *testing.T) {
	n1 := ct.Node("n1").Obj()
	pending := ct.Pod("shop", "db").Claim("data").Claim("logs").Obj()
	pending.UID = "db"
	free := ct.PV("local-n1").Class("local").Affinity(corev1.LabelHostname, "n1").Obj()
	free.ResourceVersion = "10"
	data := ct.PVC("shop", "data").Class("local").Obj()
	logs := ct.PVC("shop", "logs").Class("zonal").Obj()
	logs.ResourceVersion = "11"

	prebound := free.DeepCopy()
	prebound.Spec.ClaimRef = &corev1.ObjectReference{Namespace: "shop", Name: "data"}
	annotated := logs.DeepCopy()
	annotated.Annotations = map[string]string{cluster.AnnSelectedNode: "n1"}
	vols := volumebinding.PodVolumes{Node: "n1",
		Bindings:   []volumebinding.ClaimBinding{{Claim: &data, Volume: prebound}},
		Provisions: []*corev1.PersistentVolumeClaim{annotated}}

	// written is the PV controller's copy of the volume, newer than ours.
	written := prebound.DeepCopy()
	written.ResourceVersion = "12"
	written.Spec.ClaimRef.UID = "data-uid"

	tests := []struct {
		name string
		then []change
		// wantRef is the claim the cache's volume is bound to; wantNode the
		// node the cache's claim logs is annotated with.
		wantRef, wantNode string
	}{
		{name: "assumed while the volumes are bound", wantRef: "data", wantNode: "n1"},
		{name: "the binding failed: given back", then: []change{{bindFailed: "db"}}},
		{name: "the informers' newer copy is kept", then: []change{{volume: written}, {bindFailed: "db"}}, wantRef: "data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newPodCache(func(string, string) *metav1.OwnerReference { return nil })
			for _, ch := range []change{{node: &n1}, {pod: &pending}, {volume: &free}, {volume: &data}, {volume: &logs}, {volumesListed: true}} {
				c.push(ch)
			}
			c.apply(time.Unix(1000, 0))
			if err := c.assume(c.snap.Pod("shop/db"), "n1", vols); err != nil {
				t.Fatal(err)
			}
			for _, ch := range tt.then {
				c.push(ch)
			}
			c.apply(time.Unix(1001, 0))
			ref := ""
			if r := c.snap.PersistentVolume("local-n1").Spec.ClaimRef; r != nil {
				ref = r.Name
			}
			if node := c.snap.Claim("shop", "logs").Annotations[cluster.AnnSelectedNode]; ref != tt.wantRef || node != tt.wantNode {
				t.Errorf("volume bound to %q and claim annotated with %q, want %q and %q", ref, node, tt.wantRef, tt.wantNode)
			}
		})
	}
}
