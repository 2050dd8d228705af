package imagelocality_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/imagelocality"
	"github.com/kube-rebalancer/rebalancer/scheduler/schedulertest"
)

func TestImageLocalityPrefersNodesWithTheImage(t *testing.T) {
	const mb = 1024 * 1024
	nodes := []corev1.Node{
		ct.Node("a").Image(500*mb, "registry.example/big:1").Obj(),
		ct.Node("b").Obj(),
		ct.Node("c").Image(500*mb, "registry.example/big:1").Obj(),
		ct.Node("d").Image(500*mb, "registry.example/other:latest").Obj(),
	}
	pods := []corev1.Pod{schedulertest.IncomingPod().Image("registry.example/big:1").Obj()}
	got := schedulertest.ScoresOf(t, schedulertest.DefaultEngine(t), nodes, pods, imagelocality.Name)
	// The image is on 2 of 4 nodes: it counts 250MB there. (250-23)*100/(1000-23) = 23.
	want := []int64{23, 0, 23, 0}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ImageLocality scores %v, want %v", got, want)
		}
	}

	// An image without a tag is the ":latest" one.
	pods = []corev1.Pod{schedulertest.IncomingPod().Image("registry.example/other").Obj()}
	if got := schedulertest.ScoresOf(t, schedulertest.DefaultEngine(t), nodes, pods, imagelocality.Name); got[3] == 0 || got[0] != 0 {
		t.Errorf("ImageLocality scores %v for an untagged image: want only d above 0", got)
	}
}
