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
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

var (
	pvcs = corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims")
	pvs  = corev1.SchemeGroupVersion.WithResource("persistentvolumes")
)

// waitingClaim is an unbound claim of the class, with the UID the API
// server gives every object (a volume's claimRef names it).
func waitingClaim(name, class string) corev1.PersistentVolumeClaim {
	c := ct.PVC("db", name).Class(class).Obj()
	c.UID = types.UID(name + "-uid")
	return c
}

// pvController acts, on the fake API server, as the PV controller and a
// provisioner do on a real one: a volume prebound to a claim is bound to
// it; a claim annotated with a node gets a volume of that node, unless
// failures says the provisioner gives up on it (it then takes the
// annotation back, asking the scheduler to choose again).
func pvController(failures int) func(*fake.Clientset) {
	var mu sync.Mutex
	return func(client *fake.Clientset) {
		bindClaim := func(ns, name, volume string) error {
			obj, err := client.Tracker().Get(pvcs, ns, name)
			if err != nil {
				return err
			}
			c := obj.(*corev1.PersistentVolumeClaim).DeepCopy()
			c.Spec.VolumeName = volume
			metav1.SetMetaDataAnnotation(&c.ObjectMeta, cluster.AnnBindCompleted, "yes")
			c.Status.Phase = corev1.ClaimBound
			return client.Tracker().Update(pvcs, c, ns)
		}
		client.PrependReactor("update", "persistentvolumes", func(a k8stesting.Action) (bool, runtime.Object, error) {
			pv := a.(k8stesting.UpdateAction).GetObject().(*corev1.PersistentVolume)
			if ref := pv.Spec.ClaimRef; ref != nil {
				if err := client.Tracker().Update(pvs, pv, ""); err != nil {
					return true, nil, err
				}
				return true, pv, bindClaim(ref.Namespace, ref.Name, pv.Name)
			}
			return false, nil, nil
		})
		client.PrependReactor("update", "persistentvolumeclaims", func(a k8stesting.Action) (bool, runtime.Object, error) {
			c := a.(k8stesting.UpdateAction).GetObject().(*corev1.PersistentVolumeClaim)
			node, ok := c.Annotations[cluster.AnnSelectedNode]
			if !ok {
				return false, nil, nil
			}
			mu.Lock()
			fail := failures > 0
			failures--
			mu.Unlock()
			if err := client.Tracker().Update(pvcs, c, c.Namespace); err != nil {
				return true, nil, err
			}
			if fail {
				go func() {
					time.Sleep(100 * time.Millisecond)
					back := c.DeepCopy()
					delete(back.Annotations, cluster.AnnSelectedNode)
					_ = client.Tracker().Update(pvcs, back, c.Namespace)
				}()
				return true, c, nil
			}
			pv := ct.PV("pvc-"+string(c.UID)).Class(*c.Spec.StorageClassName).Affinity(corev1.LabelHostname, node).BoundTo(c.Namespace, c.Name).Obj()
			pv.Spec.ClaimRef.UID = c.UID
			if err := client.Tracker().Add(&pv); err != nil {
				return true, nil, err
			}
			return true, c, bindClaim(c.Namespace, c.Name, pv.Name)
		})
	}
}

// boundAfter checks that the pod's Binding was sent after the write of
// the volume or claim: the pod must not wait on a node for its volume.
func boundAfter(t *testing.T, client *fake.Clientset, resource string) {
	t.Helper()
	written, binding := -1, -1
	for i, a := range client.Actions() {
		switch {
		case a.GetVerb() == "update" && a.GetResource().Resource == resource && written < 0:
			written = i
		case a.GetVerb() == "create" && a.GetSubresource() == "binding":
			binding = i
		}
	}
	if written < 0 || binding < written {
		t.Errorf("%s written at call %d, the pod bound at call %d: want the volume first", resource, written, binding)
	}
}

// The Kubernetes docs' local volumes: a WaitForFirstConsumer claim takes
// the available volume of the node the pod goes to, and the pod is bound
// only once the PV controller has bound the claim.
func TestPreBindBindsTheChosenVolumeBeforeThePod(t *testing.T) {
	claim := waitingClaim("data-0", "local")
	client := liveClusterReacting(t, pvController(0),
		ct.Node("a"), ct.Node("b"),
		ct.StorageClass("local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer"),
		ct.PV("local-b").Class("local").Affinity(corev1.LabelHostname, "b"),
		claim, ours("db-0", "data-0"))
	if got := waitForPod(t, client, "db", "db-0", bound).Spec.NodeName; got != "b" {
		t.Errorf("pod bound to %s, want b, the node of the only volume", got)
	}
	pv, err := client.CoreV1().PersistentVolumes().Get(context.Background(), "local-b", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ref := pv.Spec.ClaimRef; ref == nil || ref.Name != "data-0" || ref.UID != claim.UID {
		t.Errorf("volume's claimRef %+v, want db/data-0", ref)
	}
	boundAfter(t, client, "persistentvolumes")
}

// A claim of a provisioning class is annotated with the chosen node, and
// the pod is bound once the provisioner's volume is bound to the claim.
func TestPreBindAsksTheProvisionerForAVolumeOnTheNode(t *testing.T) {
	client := liveClusterReacting(t, pvController(0),
		ct.Node("a").Zone("zone-a"), ct.Node("b").Zone("zone-b"),
		ct.StorageClass("zonal", "ebs.csi.aws.com", "WaitForFirstConsumer", "zone-b"),
		waitingClaim("data-0", "zonal"), ours("db-0", "data-0"))
	if got := waitForPod(t, client, "db", "db-0", bound).Spec.NodeName; got != "b" {
		t.Errorf("pod bound to %s, want b, the only node of the class's zone", got)
	}
	c, err := client.CoreV1().PersistentVolumeClaims("db").Get(context.Background(), "data-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Annotations[cluster.AnnSelectedNode] != "b" || c.Spec.VolumeName == "" {
		t.Errorf("claim annotations %v, volume %q: want selected node b and a volume", c.Annotations, c.Spec.VolumeName)
	}
	boundAfter(t, client, "persistentvolumeclaims")
}

// A provisioner that cannot provision takes the node back from the claim;
// the pod is not bound, the user is told, and it is decided again after
// its backoff.
func TestPreBindRetriesWhenTheProvisionerGivesUp(t *testing.T) {
	client := liveClusterReacting(t, pvController(1),
		ct.Node("a"),
		ct.StorageClass("zonal", "ebs.csi.aws.com", "WaitForFirstConsumer"),
		waitingClaim("data-0", "zonal"), ours("db-0", "data-0"))
	want := `running PreBind plugin "VolumeBinding": binding volumes: provisioning failed for PVC "data-0"`
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		evs, err := client.CoreV1().Events("db").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range evs.Items {
			if e.Reason == "FailedScheduling" && strings.Contains(e.Message, want) {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no FailedScheduling event with %q: %v", want, err)
	}
	p := waitForPod(t, client, "db", "db-0", bound)
	reason := ""
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			reason = c.Reason
		}
	}
	// The fake API server's Binding leaves the condition of the failed
	// attempt in place.
	if reason != reasonSchedulerError {
		t.Errorf("PodScheduled=False reason %q, want %q", reason, reasonSchedulerError)
	}
}
