package app

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/cluster/kube/kubetest"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
	"github.com/kube-rebalancer/rebalancer/schedulerd"
)

// scheduleActions runs the live scheduler against a fake API server until it
// has bound one pod, reported another as unschedulable, bound a third by
// preempting a fourth, and prebound a volume and asked for another for two
// pods with WaitForFirstConsumer claims; and returns every call it made.
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
	// No PV controller runs here: the two pods wait for their claims to be
	// bound once their PreBind has written what it decided.
	waiting := func(name, class string) (corev1.PersistentVolumeClaim, *ct.PodBuilder) {
		c := ct.PVC("shop", name).Class(class).Obj()
		c.UID = types.UID(name)
		return c, ct.Pod("shop", name).Claim(name).Edit(func(p *corev1.Pod) {
			p.Spec.SchedulerName = "rebalancer"
			p.Status = corev1.PodStatus{Phase: corev1.PodPending}
		})
	}
	local, localPod := waiting("local", "local")
	zonal, zonalPod := waiting("zonal", "zonal")
	client := kubetest.Clientset(ct.Objects(node, rs, fits, huge, urgent, low, ns,
		ct.StorageClass("local", "kubernetes.io/no-provisioner", storagev1.VolumeBindingWaitForFirstConsumer),
		ct.StorageClass("zonal", "ebs.csi.aws.com", storagev1.VolumeBindingWaitForFirstConsumer),
		ct.PV("local-n1").Class("local").Affinity(corev1.LabelHostname, "n1"), local, localPod, zonal, zonalPod))
	kubetest.BindingsSetNode(client)
	eng, err := engine.New(profile.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	live := &schedulerd.Live{Client: client, Engine: eng, SchedulerName: "rebalancer",
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
		pvs := corev1.SchemeGroupVersion.WithResource("persistentvolumes")
		pvcs := corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims")
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
			pv, err := client.Tracker().Get(pvs, "", "local-n1")
			if err != nil {
				return false, err
			}
			claim, err := client.Tracker().Get(pvcs, "shop", "zonal")
			if err != nil {
				return false, err
			}
			volumesWritten := pv.(*corev1.PersistentVolume).Spec.ClaimRef != nil && claim.(*corev1.PersistentVolumeClaim).Annotations[cluster.AnnSelectedNode] == "n1"
			repeated := false
			for _, e := range list.(*corev1.EventList).Items {
				repeated = repeated || (e.Reason == "FailedScheduling" && e.Count >= 2)
			}
			return f.(*corev1.Pod).Spec.NodeName != "" && u.(*corev1.Pod).Spec.NodeName != "" && len(h.(*corev1.Pod).Status.Conditions) > 0 && repeated && volumesWritten, nil
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
