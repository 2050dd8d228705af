package schedulerd

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// A pod of high priority that fits nowhere takes the place of a pod of low
// priority: it is nominated to the node, the victim is marked and deleted,
// and the pod binds there once the victim is gone.
func TestLivePreemptsALowerPriorityPod(t *testing.T) {
	// The victim's condition is written before it is deleted: see it
	// through the delete.
	marked := make(chan *corev1.Pod, 1)
	watchDeletes := func(client *fake.Clientset) {
		client.PrependReactor("delete", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
			obj, err := client.Tracker().Get(corev1.SchemeGroupVersion.WithResource("pods"), a.GetNamespace(), a.(k8stesting.DeleteAction).GetName())
			if err == nil {
				select {
				case marked <- obj.(*corev1.Pod):
				default:
				}
			}
			return false, nil, nil
		})
	}
	client := liveClusterReacting(t, watchDeletes, ct.Node("n1"), ct.DeploymentReplicaSet("shop", "web"),
		ct.Pod("shop", "batch").On("n1").Requests("3", "").Priority(10).Edit(func(p *corev1.Pod) { p.Spec.SchedulerName = "rebalancer" }),
		replacement("urgent").Requests("2", "").Priority(1000))
	p := waitForPod(t, client, "shop", "urgent", bound)
	if p.Spec.NodeName != "n1" || p.Status.NominatedNodeName != "n1" {
		t.Errorf("preemptor on %q nominated to %q, want both n1", p.Spec.NodeName, p.Status.NominatedNodeName)
	}
	if _, err := client.CoreV1().Pods("shop").Get(context.Background(), "batch", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("victim still there: %v", err)
	}
	select {
	case v := <-marked:
		found := false
		for _, c := range v.Status.Conditions {
			found = found || c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue && c.Reason == corev1.PodReasonPreemptionByScheduler
		}
		if !found {
			t.Errorf("victim deleted with conditions %v, want DisruptionTarget by PreemptionByScheduler", v.Status.Conditions)
		}
	default:
		t.Error("no victim was deleted")
	}
}

func TestLiveDoesNotPreemptWithPreemptionPolicyNever(t *testing.T) {
	never := corev1.PreemptNever
	client := liveCluster(t, nil, ct.Node("n1"), ct.DeploymentReplicaSet("shop", "web"),
		ct.Pod("shop", "batch").On("n1").Requests("3", "").Priority(10),
		replacement("polite").Requests("2", "").Priority(1000).Edit(func(p *corev1.Pod) { p.Spec.PreemptionPolicy = &never }))
	p := waitForPod(t, client, "shop", "polite", func(p *corev1.Pod) bool { return len(p.Status.Conditions) > 0 })
	want := "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never."
	if c := p.Status.Conditions[0]; c.Message != want || p.Status.NominatedNodeName != "" {
		t.Errorf("condition %q, nominated to %q; want %q and no nomination", c.Message, p.Status.NominatedNodeName, want)
	}
	// Nothing is deleted, now or after a while.
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 300*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().Pods("shop").Get(ctx, "batch", metav1.GetOptions{})
		return err != nil, nil
	})
	if err == nil {
		t.Error("the lower-priority pod was deleted")
	}
}

// A nomination outlives what it held: the pods of lower priority on the
// node are gone and one of equal priority took the room. Preemption, which
// finds no node now, clears it as kube-scheduler does; a pod that may not
// preempt keeps it.
func TestLiveClearsANominationPreemptionCannotRenew(t *testing.T) {
	never := corev1.PreemptNever
	nominated := func(name string, policy *corev1.PreemptionPolicy) *ct.PodBuilder {
		return replacement(name).Requests("2", "").Priority(1000).Edit(func(p *corev1.Pod) {
			p.Status.NominatedNodeName = "n1"
			p.Spec.PreemptionPolicy = policy
		})
	}
	client := liveCluster(t, nil, ct.Node("n1"), ct.DeploymentReplicaSet("shop", "web"),
		ct.Pod("shop", "peer").On("n1").Requests("3", "").Priority(1000),
		nominated("urgent", nil), nominated("polite", &never))
	tried := func(p *corev1.Pod) bool { return len(p.Status.Conditions) > 0 }
	if p := waitForPod(t, client, "shop", "urgent", tried); p.Status.NominatedNodeName != "" {
		t.Errorf("nominated to %q, want the nomination cleared", p.Status.NominatedNodeName)
	}
	if p := waitForPod(t, client, "shop", "polite", tried); p.Status.NominatedNodeName != "n1" {
		t.Errorf("nominated to %q, want n1 kept: the pod may not preempt", p.Status.NominatedNodeName)
	}
}
