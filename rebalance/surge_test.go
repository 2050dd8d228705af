package rebalance

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/planner"
)

// controllers plays the Deployment and ReplicaSet controllers of a
// Deployment shop/web whose ReplicaSet web-rs runs one pod, web-0 on n1:
// a change of spec.replicas through the scale subresource creates a pod on
// node (Ready when ready) or, with refuse, records the ReplicaSet's
// ReplicaFailure instead; a lower count deletes the pod the ReplicaSet
// controller ranks first (not Ready, then the lowest deletion cost).
type controllers struct {
	client *fake.Clientset
	node   string
	ready  bool
	refuse string
	made   int
}

var (
	podsResource        = corev1.SchemeGroupVersion.WithResource("pods")
	deploymentsResource = appsv1.SchemeGroupVersion.WithResource("deployments")
	replicaSetsResource = appsv1.SchemeGroupVersion.WithResource("replicasets")
)

func newControllers(t *testing.T) *controllers {
	t.Helper()
	one, yes := int32(1), true
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "d-uid", Generation: 1},
		Spec:   appsv1.DeploymentSpec{Replicas: &one, Selector: sel},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 1, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1}}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-rs", UID: "rs-uid",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "d-uid", Controller: &yes}}},
		Spec: appsv1.ReplicaSetSpec{Replicas: &one, Selector: sel}}
	c := &controllers{client: fake.NewClientset(d, rs, pod("web-0", "n1", true)), node: "n2", ready: true}
	c.client.PrependReactor("list", "*", c.listByName)
	c.client.PrependReactor("get", "deployments", c.getScale)
	c.client.PrependReactor("update", "deployments", c.updateScale)
	return c
}

func pod(name, node string, ready bool) *corev1.Pod {
	yes := true
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, UID: types.UID(name + "-uid"), Labels: map[string]string{"app": "web"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-rs", UID: "rs-uid", Controller: &yes}}},
		Spec:   corev1.PodSpec{NodeName: node},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}},
	}
}

// listByName answers a LIST that selects metadata.name, which the fake
// clientset does not filter on.
func (c *controllers) listByName(a k8stesting.Action) (bool, runtime.Object, error) {
	l := a.(k8stesting.ListAction)
	name, ok := l.GetListRestrictions().Fields.RequiresExactMatch("metadata.name")
	if !ok {
		return false, nil, nil
	}
	obj, err := c.client.Tracker().Get(a.GetResource(), a.GetNamespace(), name)
	found := err == nil
	switch a.GetResource().Resource {
	case "pods":
		out := &corev1.PodList{}
		if found {
			out.Items = append(out.Items, *obj.(*corev1.Pod))
		}
		return true, out, nil
	case "deployments":
		out := &appsv1.DeploymentList{}
		if found {
			out.Items = append(out.Items, *obj.(*appsv1.Deployment))
		}
		return true, out, nil
	case "replicasets":
		out := &appsv1.ReplicaSetList{}
		if found {
			out.Items = append(out.Items, *obj.(*appsv1.ReplicaSet))
		}
		return true, out, nil
	}
	return false, nil, nil
}

func (c *controllers) deployment() *appsv1.Deployment {
	obj, err := c.client.Tracker().Get(deploymentsResource, "shop", "web")
	if err != nil {
		panic(err)
	}
	return obj.(*appsv1.Deployment)
}

func (c *controllers) getScale(a k8stesting.Action) (bool, runtime.Object, error) {
	if a.GetSubresource() != "scale" {
		return false, nil, nil
	}
	d := c.deployment()
	return true, &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec: autoscalingv1.ScaleSpec{Replicas: *d.Spec.Replicas}}, nil
}

func (c *controllers) updateScale(a k8stesting.Action) (bool, runtime.Object, error) {
	if a.GetSubresource() != "scale" {
		return false, nil, nil
	}
	scale := a.(k8stesting.UpdateAction).GetObject().(*autoscalingv1.Scale)
	d := c.deployment()
	was := *d.Spec.Replicas
	d.Spec.Replicas = &scale.Spec.Replicas
	if err := c.client.Tracker().Update(deploymentsResource, d, "shop"); err != nil {
		return true, nil, err
	}
	switch {
	case scale.Spec.Replicas > was && c.refuse != "":
		obj, _ := c.client.Tracker().Get(replicaSetsResource, "shop", "web-rs")
		rs := obj.(*appsv1.ReplicaSet)
		rs.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: c.refuse}}
		_ = c.client.Tracker().Update(replicaSetsResource, rs, "shop")
	case scale.Spec.Replicas > was:
		c.made++
		_ = c.client.Tracker().Add(pod(fmt.Sprintf("web-new-%d", c.made), c.node, c.ready))
	case scale.Spec.Replicas < was:
		c.scaleDown(int(scale.Spec.Replicas))
	}
	return true, scale, nil
}

// scaleDown deletes the pods beyond replicas that the ReplicaSet
// controller would: not Ready before Ready, then the lowest
// pod-deletion-cost.
func (c *controllers) scaleDown(replicas int) {
	pods := c.pods()
	cost := func(p corev1.Pod) int {
		n, _ := strconv.Atoi(p.Annotations[corev1.PodDeletionCost])
		return n
	}
	slices.SortStableFunc(pods, func(a, b corev1.Pod) int {
		if ra, rb := cluster.IsReady(&a), cluster.IsReady(&b); ra != rb {
			if ra {
				return 1
			}
			return -1
		}
		return cost(a) - cost(b)
	})
	for _, p := range pods[:max(len(pods)-replicas, 0)] {
		_ = c.client.Tracker().Delete(podsResource, "shop", p.Name)
	}
}

func (c *controllers) pods() []corev1.Pod {
	obj, _ := c.client.Tracker().List(podsResource, corev1.SchemeGroupVersion.WithKind("Pod"), "shop")
	return obj.(*corev1.PodList).Items
}

// state says what the run left: the pods (name@node, with the deletion
// cost when one is set), spec.replicas, the surges under way.
func (c *controllers) state(t *testing.T, h *kube.HistoryStore) string {
	t.Helper()
	var pods []string
	for _, p := range c.pods() {
		s := p.Name + "@" + p.Spec.NodeName
		if v, ok := p.Annotations[corev1.PodDeletionCost]; ok {
			s += " cost " + v
		}
		pods = append(pods, s)
	}
	slices.Sort(pods)
	surges, err := h.Surges(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("pods [%s], replicas %d, surges under way %d", strings.Join(pods, " "), *c.deployment().Spec.Replicas, len(surges))
}

func surgeRunner(c *controllers) (*Runner, *kube.HistoryStore) {
	h := &kube.HistoryStore{Client: c.client, Namespace: "rebalancer", Name: "rebalancer-state", Keep: time.Hour}
	return New(Config{Client: c.client, History: h, StepTimeout: 50 * time.Millisecond}), h
}

func fastSurges(t *testing.T) {
	handoffDelay, surgePoll = time.Millisecond, 5*time.Millisecond
	t.Cleanup(func() { handoffDelay, surgePoll = 2*time.Second, settlePoll })
}

// A surge ends with the new pod where it was planned, the old pod removed
// by its ReplicaSet and the Deployment at its replicas; one that cannot
// finish is undone and leaves the pod where it was.
func TestSurge(t *testing.T) {
	fastSurges(t)
	lowest := strconv.Itoa(math.MinInt32)
	tests := []struct {
		name string
		// ready: the new pod becomes Ready; refuse: a quota refuses it.
		ready  bool
		refuse string
		// node is where the new pod is placed; default n2, as planned.
		node   string
		result evictor.Result
		// message is a part of the outcome's message.
		message string
		state   string
	}{
		{
			name: "the new pod is Ready: the old one goes", ready: true,
			result: evictor.Surged, message: "replacement web-new-1 Ready on n2 before the pod went",
			state: "pods [web-new-1@n2], replicas 1, surges under way 0",
		},
		{
			name: "the new pod is never Ready: undone at --step-timeout", ready: false,
			result: evictor.RolledBack, message: "--step-timeout 50ms reached while waiting for pod web-new-1 to be Ready on n2; undone, the pod stays",
			state: "pods [web-0@n1], replicas 1, surges under way 0",
		},
		{
			name: "the new pod is placed on the node the pod leaves: undone", ready: true, node: "n1",
			result: evictor.RolledBack, message: "the new pod web-new-1 was placed on n1, the node the pod leaves, not on n2 as planned; undone, the pod stays",
			state: "pods [web-0@n1], replicas 1, surges under way 0",
		},
		{
			name: "a quota refuses the extra pod: undone", refuse: `pods "web-new" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=1, limited: pods=1`,
			result: evictor.RolledBack, message: "the ReplicaSet could not create the extra pod: pods \"web-new\" is forbidden: exceeded quota",
			state: "pods [web-0@n1], replicas 1, surges under way 0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newControllers(t)
			c.ready, c.refuse = tt.ready, tt.refuse
			if tt.node != "" {
				c.node = tt.node
			}
			r, h := surgeRunner(c)
			snap := snapshotOf(t, c)
			m := planner.Move{Pod: "shop/web-0", UID: "web-0-uid", Workload: "Deployment shop/web", From: "n1", To: "n2", Strategy: "Test", Surge: true}
			out := r.surge(context.Background(), snap, m)
			if out.Result != tt.result || !strings.Contains(out.Message, tt.message) {
				t.Errorf("outcome %s: %q, want %s: %q", out.Result, out.Message, tt.result, tt.message)
			}
			if got := c.state(t, h); got != tt.state {
				t.Errorf("left %s\nwant %s", got, tt.state)
			}
			// The intent steers the new pod while it is made; one undone
			// is retracted, so that it steers nothing later.
			evs, err := h.Read(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			intents := len(slices.DeleteFunc(evs, func(e cluster.Eviction) bool { return !e.Surge || e.To != "n2" }))
			if want := map[evictor.Result]int{evictor.Surged: 1}[tt.result]; intents != want {
				t.Errorf("%d surge intents recorded, want %d", intents, want)
			}
			if strings.Contains(c.state(t, h), lowest) {
				t.Errorf("a pod keeps the deletion cost the surge set: %s", c.state(t, h))
			}
		})
	}
}

// A surge a killed run left under way is ended by the next run before it
// reads the cluster: finished when its new pod is Ready, undone otherwise.
func TestRecoverSurges(t *testing.T) {
	fastSurges(t)
	tests := []struct {
		name     string
		newReady bool
		state    string
	}{
		{"the new pod is Ready: finished", true, "pods [web-new-1@n2], replicas 1, surges under way 0"},
		{"the new pod is not Ready: undone", false, "pods [web-0@n1], replicas 1, surges under way 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newControllers(t)
			c.ready = tt.newReady
			r, h := surgeRunner(c)
			s := cluster.Surge{Deployment: "shop/web", DeploymentUID: "d-uid", Replicas: 1, Pod: "shop/web-0", UID: "web-0-uid",
				From: "n1", To: "n2", ReplicaSet: "web-rs", Before: []types.UID{"web-0-uid"}, At: time.Now()}
			if err := h.RecordSurge(context.Background(), s); err != nil {
				t.Fatal(err)
			}
			// Where the killed run stopped: one replica more, its pod made.
			if err := r.scaleSurge(context.Background(), s, 1, 2); err != nil {
				t.Fatal(err)
			}
			if err := r.recoverSurges(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := c.state(t, h); got != tt.state {
				t.Errorf("left %s\nwant %s", got, tt.state)
			}
		})
	}
}

// snapshotOf is the cluster the controllers hold, as a run reads it.
func snapshotOf(t *testing.T, c *controllers) *cluster.Snapshot {
	t.Helper()
	objs, err := kube.ReadObjects(context.Background(), c.client)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := cluster.New(objs, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return snap
}
