package schedulerd

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/cluster/kube/kubetest"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// liveCluster starts a fake API server holding objs, whose binding
// subresource sets the pod's node, and a Live scheduler on it named
// "rebalancer"; it returns the client and waits for nothing.
func liveCluster(t *testing.T, history []cluster.Eviction, objs ...any) *fake.Clientset {
	t.Helper()
	return liveClusterWithMetrics(t, nil, history, objs...)
}

// liveClusterWithMetrics is liveCluster with a Live that counts into m.
func liveClusterWithMetrics(t *testing.T, m *Metrics, history []cluster.Eviction, objs ...any) *fake.Clientset {
	t.Helper()
	return startLiveCluster(t, m, history, nil, objs...)
}

// liveClusterReacting is liveCluster with react given the fake API server
// before the scheduler starts: reactors added later would race with it.
func liveClusterReacting(t *testing.T, react func(*fake.Clientset), objs ...any) *fake.Clientset {
	t.Helper()
	return startLiveCluster(t, nil, nil, react, objs...)
}

func startLiveCluster(t *testing.T, m *Metrics, history []cluster.Eviction, react func(*fake.Clientset), objs ...any) *fake.Clientset {
	t.Helper()
	client := kubetest.Clientset(ct.Objects(objs...))
	kubetest.BindingsSetNode(client)
	if react != nil {
		react(client)
	}
	store := &kube.HistoryStore{Client: client, Namespace: "rebalancer", Name: "rebalancer-state", Keep: time.Hour}
	if len(history) > 0 {
		if err := store.Append(context.Background(), time.Now(), history); err != nil {
			t.Fatal(err)
		}
	}
	eng, err := engine.New(profile.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	live := &Live{Client: client, Engine: eng, SchedulerName: "rebalancer", History: store, Metrics: m}
	go func() {
		defer close(done)
		if err := live.Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return client
}

func waitForPod(t *testing.T, client *fake.Clientset, ns, name string, cond func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	var last *corev1.Pod
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		last = p
		return cond(p), nil
	})
	if err != nil {
		t.Fatalf("pod %s/%s: %v; last seen: node %q, conditions %v", ns, name, err, last.Spec.NodeName, last.Status.Conditions)
	}
	return last
}

func bound(p *corev1.Pod) bool { return p.Spec.NodeName != "" }

func replacement(name string) *ct.PodBuilder {
	return ct.Pod("shop", name).Requests("1", "1Gi").Deployment("web").Edit(func(p *corev1.Pod) {
		p.Spec.SchedulerName = "rebalancer"
		p.Status = corev1.PodStatus{Phase: corev1.PodPending}
	})
}

var webWorkload = cluster.Workload{Kind: "Deployment", Namespace: "shop", Name: "web"}

func TestLivePlacesTheReplacementWhereThePlanSaid(t *testing.T) {
	// n3 is not where the engine would choose on its own (n2 is emptier),
	// but it is where the plan put the replacement.
	client := liveCluster(t,
		[]cluster.Eviction{{Pod: "shop/web-old", Workload: webWorkload, From: "n1", To: "n3", Strategy: "LowNodeUtilization", At: time.Now()}},
		ct.Node("n1"), ct.Node("n2"), ct.Node("n3"), ct.DeploymentReplicaSet("shop", "web"),
		ct.Pod("shop", "filler").On("n3").Requests("2", "4Gi").Deployment("web"),
		replacement("web-new"))
	if got := waitForPod(t, client, "shop", "web-new", bound).Spec.NodeName; got != "n3" {
		t.Errorf("replacement bound to %s, want n3 as planned", got)
	}
}

// A run killed between recording an eviction and making it leaves the
// pod running on its node under the UID it recorded: a new pod of the
// workload is no replacement, and is placed as the engine chooses. A
// surge's pod runs until its replacement is Ready: the new pod goes where
// the plan said while it still runs.
func TestLiveSteersBesideARunningPodOnlyForASurge(t *testing.T) {
	tests := []struct {
		name  string
		surge bool
		want  string
	}{
		{name: "an eviction that never happened steers nothing: the engine's n2", want: "n2"},
		{name: "a surge steers its new pod to n3 while the old one runs", surge: true, want: "n3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := liveCluster(t,
				[]cluster.Eviction{{Pod: "shop/web-old", UID: "uid-web-old", Workload: webWorkload, From: "n1", To: "n3",
					Strategy: "LowNodeUtilization", At: time.Now(), Surge: tt.surge}},
				ct.Node("n1"), ct.Node("n2"), ct.Node("n3"), ct.DeploymentReplicaSet("shop", "web"),
				ct.Pod("shop", "web-old").On("n1").Requests("1", "1Gi").Deployment("web").Edit(func(p *corev1.Pod) { p.UID = "uid-web-old" }),
				ct.Pod("shop", "filler").On("n3").Requests("2", "4Gi").Deployment("web"),
				replacement("web-new"))
			if got := waitForPod(t, client, "shop", "web-new", bound).Spec.NodeName; got != tt.want {
				t.Errorf("new pod bound to %s, want %s", got, tt.want)
			}
		})
	}
}

// A surge's new pod comes with no departure, only once the run, which
// waits a moment after recording the intent, raised the replicas: the
// list read before the intent is older than handoffsReadEvery by then,
// and is read again.
func TestLiveReadsHandoffsAgainForASurge(t *testing.T) {
	tests := []struct {
		name string
		// wait is how long after the intent was recorded the new pod is
		// decided; the list was read just before it was recorded.
		wait time.Duration
		want bool
	}{
		{name: "decided after the run's wait: the intent is read", wait: 2 * time.Second, want: true},
		{name: "decided after handoffsReadEvery: the intent is read", wait: handoffsReadEvery, want: true},
		{name: "decided within handoffsReadEvery of the last read: the list read before", wait: handoffsReadEvery / 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			client := kubetest.Clientset(ct.Objects())
			store := &kube.HistoryStore{Client: client, Namespace: "rebalancer", Name: "rebalancer-state", Keep: time.Hour}
			l := &Live{History: store, HandoffTTL: 10 * time.Minute}
			pod := replacement("web-new").Obj()
			read := time.Now()
			if got := l.readHandoffs(ctx, &pod, read); len(got) != 0 {
				t.Fatalf("hand-offs before the run %v, want none", got)
			}
			surge := cluster.Eviction{Pod: "shop/web-old", UID: "uid-web-old", Workload: webWorkload, From: "n1", To: "n3",
				Strategy: "RemovePodsViolatingNodeTaints", At: read, Surge: true}
			if err := store.Append(ctx, read, []cluster.Eviction{surge}); err != nil {
				t.Fatal(err)
			}
			got := l.readHandoffs(ctx, &pod, read.Add(tt.wait))
			if held := len(got) == 1 && got[0].Surge; held != tt.want {
				t.Errorf("hand-offs %v; holds the surge %v, want %v", got, held, tt.want)
			}
		})
	}
}

func TestLiveAvoidsTheNodeTheWorkloadLeft(t *testing.T) {
	// The planned node is full now; n1 is the emptiest, but the workload just
	// left it: n2.
	client := liveCluster(t,
		[]cluster.Eviction{{Pod: "shop/web-old", Workload: webWorkload, From: "n1", To: "n3", Strategy: "LowNodeUtilization", At: time.Now()}},
		ct.Node("n1"), ct.Node("n2"), ct.Node("n3"), ct.DeploymentReplicaSet("shop", "web"),
		ct.Pod("shop", "blocker").On("n3").Requests("3500m", "").Deployment("web"),
		ct.Pod("shop", "some").On("n2").Requests("1", "").Deployment("web"),
		replacement("web-new"))
	if got := waitForPod(t, client, "shop", "web-new", bound).Spec.NodeName; got != "n2" {
		t.Errorf("replacement bound to %s, want n2", got)
	}
}

// A run records an eviction just before it makes it, and the replacement
// can come within the second that the scheduler keeps what it read: a pod
// whose workload lost a pod since the last read reads the hand-offs again,
// and goes where the plan said, not where the engine likes best.
func TestLiveReadsHandoffsAgainForAReplacementOfADeparture(t *testing.T) {
	client := liveCluster(t, nil,
		ct.Node("n1"), ct.Node("n2"), ct.Node("n3"), ct.DeploymentReplicaSet("shop", "web"),
		ct.Pod("shop", "web-old").On("n1").Requests("1", "1Gi").Deployment("web"),
		ct.Pod("shop", "blocker").On("n1").Requests("3", "").Deployment("db"),
		ct.Pod("shop", "filler").On("n3").Requests("2", "4Gi").Deployment("db"),
		replacement("api-1").Deployment("api"))
	// The scheduler reads the hand-offs for api-1: none yet.
	waitForPod(t, client, "shop", "api-1", bound)

	ctx := context.Background()
	store := &kube.HistoryStore{Client: client, Namespace: "rebalancer", Name: "rebalancer-state", Keep: time.Hour}
	evicted := cluster.Eviction{Pod: "shop/web-old", Workload: webWorkload, From: "n1", To: "n3", Strategy: "LowNodeUtilization", At: time.Now()}
	if err := store.Append(ctx, time.Now(), []cluster.Eviction{evicted}); err != nil {
		t.Fatal(err)
	}
	if err := client.CoreV1().Pods("shop").Delete(ctx, "web-old", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := replacement("web-new").Obj()
	if _, err := client.CoreV1().Pods("shop").Create(ctx, &pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := waitForPod(t, client, "shop", "web-new", bound).Spec.NodeName; got != "n3" {
		t.Errorf("replacement bound to %s, want n3 as planned", got)
	}
}

func TestLiveLeavesOtherSchedulersPodsAlone(t *testing.T) {
	client := liveCluster(t, nil, ct.Node("n1"),
		ct.Pod("shop", "theirs").Edit(func(p *corev1.Pod) { p.Status = corev1.PodStatus{Phase: corev1.PodPending} }),
		ct.Pod("shop", "ours").Edit(func(p *corev1.Pod) {
			p.Spec.SchedulerName = "rebalancer"
			p.Status = corev1.PodStatus{Phase: corev1.PodPending}
		}))
	waitForPod(t, client, "shop", "ours", bound)
	if p, _ := client.CoreV1().Pods("shop").Get(context.Background(), "theirs", metav1.GetOptions{}); p.Spec.NodeName != "" {
		t.Errorf("a default-scheduler pod was bound to %s", p.Spec.NodeName)
	}
}

func TestLiveReportsAnUnschedulablePod(t *testing.T) {
	client := liveCluster(t, nil, ct.Node("n1"), ct.Node("n2").Cordoned(), ct.DeploymentReplicaSet("shop", "web"),
		replacement("huge").Requests("8", ""))
	p := waitForPod(t, client, "shop", "huge", func(p *corev1.Pod) bool {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
				return true
			}
		}
		return false
	})
	want := "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were unschedulable. no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && (c.Reason != corev1.PodReasonUnschedulable || c.Message != want) {
			b, _ := json.Marshal(c)
			t.Errorf("condition %s, want reason Unschedulable and message %q", b, want)
		}
	}
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		evs, err := client.CoreV1().Events("shop").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range evs.Items {
			if e.Reason == "FailedScheduling" && e.Message == want && e.InvolvedObject.Name == "huge" {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Errorf("no FailedScheduling event with %q: %v", want, err)
	}
}

// A binding the informer has not shown yet is assumed: the pod is not bound
// twice, and its resources stay taken for the pods that come after it.
func TestLiveAssumesBindingsTheCacheHasNotSeen(t *testing.T) {
	objs := ct.Objects(ct.Node("n1").CPU("2"), ct.DeploymentReplicaSet("shop", "web"),
		replacement("first").Requests("1500m", ""), replacement("second").Requests("1500m", ""))
	client := kubetest.Clientset(objs)
	bindings := make(chan string, 10)
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "binding" {
			return false, nil, nil
		}
		// Accepted, but the pod object (and so the cache) never changes.
		bindings <- a.(k8stesting.CreateAction).GetObject().(*corev1.Binding).Name
		return true, nil, nil
	})
	eng, err := engine.New(profile.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	live := &Live{Client: client, Engine: eng, SchedulerName: "rebalancer"}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = live.Run(ctx) }()
	defer func() { cancel(); <-done }()

	// The second pod, 1500m on a 2-CPU node already holding the first, fits
	// nowhere: its condition says so.
	waitForPod(t, client, "shop", "second", func(p *corev1.Pod) bool { return len(p.Status.Conditions) > 0 })
	// Many rounds later, still exactly one binding.
	deadline := time.After(300 * time.Millisecond)
	var bound []string
	for {
		select {
		case name := <-bindings:
			bound = append(bound, name)
			continue
		case <-deadline:
		}
		break
	}
	if len(bound) != 1 || bound[0] != "first" {
		t.Errorf("bindings %v, want [first] once", bound)
	}
}
