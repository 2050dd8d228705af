package engine

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// The engine keeps its tables per snapshot generation. Two snapshots of
// the same node objects that each took a node of their own are two
// generations, although they hold as many nodes, the same first one: a pod
// that needs an SSD fits on the first one's new node and on none of the
// other's.
func TestTablesOfOneSnapshotAreNotAnothers(t *testing.T) {
	objs := cluster.Objects{Nodes: []corev1.Node{ct.Node("n1").CPU("4").Memory("8Gi").Pods(10).Obj()}}
	withSSD, err := cluster.New(objs, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := cluster.New(objs, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	ssd := ct.Node("n2").CPU("4").Memory("8Gi").Pods(10).Label("disk", "ssd").Obj()
	noSSD := ct.Node("n2").CPU("4").Memory("8Gi").Pods(10).Obj()
	withSSD.SetNode(&ssd)
	plain.SetNode(&noSSD)
	// The pod is another snapshot's, as a replacement the planner asks
	// about is none of the snapshots it asks of.
	pods, err := cluster.New(cluster.Objects{Pods: []corev1.Pod{ct.Pod("shop", "db-1").Requests("100m", "").Edit(func(p *corev1.Pod) {
		p.Spec.NodeSelector = map[string]string{"disk": "ssd"}
	}).Obj()}}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	pod := pods.Pod("shop/db-1")
	e, err := New(profile.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		snap *cluster.Snapshot
		want string
	}{
		{"the snapshot with the SSD node", withSSD, "n2"},
		{"the snapshot with a plain node", plain, ""},
		{"the first again", withSSD, "n2"},
	} {
		if got := e.Schedule(tc.snap, pod, Options{}).Node; got != tc.want {
			t.Errorf("%s: scheduled on %q, want %q", tc.name, got, tc.want)
		}
	}
}
