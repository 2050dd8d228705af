package schedulerd

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// ours is a pending pod of the "rebalancer" scheduler that mounts the claim.
func ours(name, claim string) *ct.PodBuilder {
	return ct.Pod("db", name).Requests("500m", "").Claim(claim).Edit(func(p *corev1.Pod) {
		p.Spec.SchedulerName = "rebalancer"
		p.Status = corev1.PodStatus{Phase: corev1.PodPending}
	})
}

// A pod goes where its bound PersistentVolume can be mounted: the local
// volume's node affinity names node b, though node a is emptier.
func TestLivePlacesAPodWhereItsVolumeIs(t *testing.T) {
	client := liveCluster(t, nil,
		ct.Node("a"), ct.Node("b"),
		ct.Pod("db", "filler").On("b").Requests("2", ""),
		ct.PV("local-b").Class("local").Affinity(corev1.LabelHostname, "b").BoundTo("db", "data-0"),
		ct.PVC("db", "data-0").Class("local").Bound("local-b"),
		ours("db-0", "data-0"))
	if got := waitForPod(t, client, "db", "db-0", bound).Spec.NodeName; got != "b" {
		t.Errorf("pod bound to %s, want b, the node of its volume", got)
	}
}

// A pod whose claim does not exist is unschedulable, as kube-scheduler
// says; once the claim is created and bound, the pod is tried again at
// once, not after the five-minute flush of the unschedulable pods.
func TestLiveRetriesAPodWhenItsClaimAppears(t *testing.T) {
	client := liveCluster(t, nil,
		ct.Node("a"), ct.Node("b"),
		ct.PV("local-b").Class("local").Affinity(corev1.LabelHostname, "b").BoundTo("db", "data-0"),
		ours("db-0", "data-0"))
	p := waitForPod(t, client, "db", "db-0", func(p *corev1.Pod) bool {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
				return true
			}
		}
		return false
	})
	if p.Spec.NodeName != "" {
		t.Fatalf("pod with a missing claim bound to %s", p.Spec.NodeName)
	}
	claim := ct.PVC("db", "data-0").Class("local").Bound("local-b").Obj()
	if _, err := client.CoreV1().PersistentVolumeClaims("db").Create(context.Background(), &claim, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := waitForPod(t, client, "db", "db-0", bound).Spec.NodeName; got != "b" {
		t.Errorf("pod bound to %s, want b, the node of its volume", got)
	}
}
