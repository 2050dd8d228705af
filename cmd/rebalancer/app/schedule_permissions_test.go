package app

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/cluster/kube/kubetest"
	"github.com/kube-rebalancer/rebalancer/scheduler"
	"github.com/kube-rebalancer/rebalancer/schedulerd"
)

// scheduleActions runs the live scheduler against a fake API server until it
// has bound one pod, reported another as unschedulable and bound a third by
// preempting a fourth, and returns every call it made.
func scheduleActions(t *testing.T, leaderElect bool) []k8stesting.Action {
	t.Helper()
	pending := func(name, cpu string) corev1.Pod {
		return ct.Pod("shop", name).Requests(cpu, "").Deployment("web").Edit(func(p *corev1.Pod) {
			p.Spec.SchedulerName = "rebalancer"
			p.Status = corev1.PodStatus{Phase: corev1.PodPending}
		}).Obj()
	}
	node, rs, fits, huge := ct.Node("n1").Obj(), ct.DeploymentReplicaSet("shop", "web"), pending("fits", "1"), pending("huge", "64")
	// urgent fits only once the low-priority pod is gone.
	urgent := pending("urgent", "2")
	urgent.Spec.Priority = ptr.To[int32](1000)
	low := ct.Pod("shop", "low").On("n1").Requests("3", "").Obj()
	ns := ct.Namespace("shop", nil)
	client := kubetest.Clientset(ct.Objects(node, rs, fits, huge, urgent, low, ns))
	kubetest.BindingsSetNode(client)
	engine, err := scheduler.NewEngine(scheduler.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	live := &schedulerd.Live{Client: client, Engine: engine, SchedulerName: "rebalancer",
		History: &kube.HistoryStore{Client: client, Namespace: stateNamespace, Name: defaultStateName, Keep: time.Hour}}

	// The work ends once both pods were handled, as if the process stopped.
	work := func(ctx context.Context) error {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		errc := make(chan error, 1)
		go func() { errc <- live.Run(ctx) }()
		// Read through the tracker: its reads are not recorded as calls.
		pods := corev1.SchemeGroupVersion.WithResource("pods")
		events := corev1.SchemeGroupVersion.WithResource("events")
		nodes := corev1.SchemeGroupVersion.WithResource("nodes")
		relabeled := false
		err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 15*time.Second, true, func(context.Context) (bool, error) {
			f, err := client.Tracker().Get(pods, "shop", "fits")
			if err != nil {
				return false, err
			}
			h, err := client.Tracker().Get(pods, "shop", "huge")
			if err != nil {
				return false, err
			}
			u, err := client.Tracker().Get(pods, "shop", "urgent")
			if err != nil {
				return false, err
			}
			list, err := client.Tracker().List(events, corev1.SchemeGroupVersion.WithKind("Event"), "shop")
			if err != nil {
				return false, err
			}
			// The huge pod waits for a change that may let it fit: a node
			// relabeled (written to the tracker, so that it is no call of
			// the scheduler's) brings it back. Its second failed attempt
			// repeats its event: the correlator patches the count.
			if len(h.(*corev1.Pod).Status.Conditions) > 0 && !relabeled {
				n := node.DeepCopy()
				n.Labels["pool"] = "b"
				if err := client.Tracker().Update(nodes, n, ""); err != nil {
					return false, err
				}
				relabeled = true
			}
			repeated := false
			for _, e := range list.(*corev1.EventList).Items {
				repeated = repeated || (e.Reason == "FailedScheduling" && e.Count >= 2)
			}
			return f.(*corev1.Pod).Spec.NodeName != "" && u.(*corev1.Pod).Spec.NodeName != "" && len(h.(*corev1.Pod).Status.Conditions) > 0 && repeated, nil
		})
		cancel()
		if runErr := <-errc; runErr != nil {
			return runErr
		}
		return err
	}
	if leaderElect {
		e := electionFlags{enabled: true, namespace: stateNamespace, name: "rebalancer-schedule"}
		err = e.run(context.Background(), client, work)
	} else {
		err = work(context.Background())
	}
	if err != nil {
		t.Fatal(err)
	}
	return client.Actions()
}

func TestSchedulePermissionsMatchTheCallsMade(t *testing.T) {
	for _, leaderElect := range []bool{false, true} {
		t.Run(fmt.Sprintf("leader-elect=%v", leaderElect), func(t *testing.T) {
			checkPermissions(t, schedulePermissions(leaderElect), scheduleActions(t, leaderElect))
		})
	}
}
