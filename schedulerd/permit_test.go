package schedulerd

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	configv1 "k8s.io/kube-scheduler/config/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/cluster/kube/kubetest"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// gate is an out-of-tree Permit plugin that answers verdict and keeps
// its Handle, to allow a waiting pod as a real plugin would.
type gate struct {
	verdict framework.PermitResult
	h       framework.Handle
}

func (*gate) Name() string { return "Gate" }

func (g *gate) Permit(*framework.Cycle, string) framework.PermitResult { return g.verdict }

// runLive runs l on a fake API server holding objs until the test ends.
func runLive(t *testing.T, l *Live, objs ...any) *fake.Clientset {
	t.Helper()
	client := kubetest.Clientset(ct.Objects(objs...))
	kubetest.BindingsSetNode(client)
	l.Client, l.SchedulerName = client, "rebalancer"
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := l.Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return client
}

func gatedEngine(t *testing.T, g *gate) *engine.Engine {
	t.Helper()
	reg := framework.Registry{"Gate": {Points: framework.PointPermit, New: func(_ any, h framework.Handle) (framework.Plugin, error) {
		g.h = h
		return g, nil
	}}}
	e, err := engine.New(profile.Profile{SchedulerName: "rebalancer",
		Plugins: &configv1.Plugins{Permit: configv1.PluginSet{Enabled: []configv1.Plugin{{Name: "Gate"}}}}}, reg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func unschedulableWith(message string) func(*corev1.Pod) bool {
	return func(p *corev1.Pod) bool {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Message == message {
				return true
			}
		}
		return false
	}
}

func TestLiveDoesNotBindAPodPermitDenies(t *testing.T) {
	g := &gate{verdict: framework.PermitResult{Verdict: framework.PermitDeny, Reason: "quota exceeded"}}
	client := runLive(t, &Live{Engine: gatedEngine(t, g)}, ct.Node("n1"), ct.DeploymentReplicaSet("shop", "web"), replacement("web-new"))
	p := waitForPod(t, client, "shop", "web-new", unschedulableWith("0/1 nodes are available: quota exceeded."))
	if p.Spec.NodeName != "" {
		t.Errorf("bound to %s despite Permit", p.Spec.NodeName)
	}
}

func TestLiveWaitsOnPermitBeforeBinding(t *testing.T) {
	tests := []struct {
		name string
		// allow, when set, is when the plugin allows the pod.
		allow    time.Duration
		timeout  time.Duration
		wantNode string
	}{
		{"the plugin allows it", 300 * time.Millisecond, time.Minute, "n1"},
		{"the plugin never answers", 0, 200 * time.Millisecond, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &gate{verdict: framework.PermitResult{Verdict: framework.PermitWait, Timeout: tt.timeout}}
			start := time.Now()
			client := runLive(t, &Live{Engine: gatedEngine(t, g)}, ct.Node("n1"), ct.DeploymentReplicaSet("shop", "web"), replacement("web-new"))
			if tt.allow > 0 {
				uid := types.UID("shop/web-new")
				go func() {
					time.Sleep(tt.allow)
					for {
						if w := g.h.WaitingPod(uid); w != nil {
							w.Allow("Gate")
							return
						}
						time.Sleep(10 * time.Millisecond)
					}
				}()
				p := waitForPod(t, client, "shop", "web-new", bound)
				if p.Spec.NodeName != tt.wantNode || time.Since(start) < tt.allow {
					t.Errorf("bound to %s after %v; want %s, not before the plugin allowed it at %v", p.Spec.NodeName, time.Since(start), tt.wantNode, tt.allow)
				}
				return
			}
			p := waitForPod(t, client, "shop", "web-new", unschedulableWith("0/1 nodes are available: rejected due to timeout after waiting 200ms at plugin Gate."))
			if p.Spec.NodeName != "" {
				t.Errorf("bound to %s after the timeout", p.Spec.NodeName)
			}
		})
	}
}

func TestLiveBindsThroughTheExtender(t *testing.T) {
	tests := []struct {
		name string
		// byExtender is what the extender's bind reports.
		byExtender bool
		wantCalls  int
	}{
		{"the extender binds", true, 1},
		{"the extender leaves the pod to the Binding API", false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			calls := 0
			l := &Live{Engine: gatedEngine(t, &gate{verdict: framework.PermitResult{Verdict: framework.PermitAllow}})}
			l.BindByExtender = func(ctx context.Context, pod *corev1.Pod, node string) (bool, error) {
				mu.Lock()
				calls++
				mu.Unlock()
				if !tt.byExtender {
					return false, nil
				}
				// A binding extender binds through the API server itself.
				return true, l.Client.CoreV1().Pods(pod.Namespace).Bind(ctx, &corev1.Binding{
					ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
					Target:     corev1.ObjectReference{Kind: "Node", Name: "n1"},
				}, metav1.CreateOptions{})
			}
			client := runLive(t, l, ct.Node("n1"), ct.DeploymentReplicaSet("shop", "web"), replacement("web-new"))
			if p := waitForPod(t, client, "shop", "web-new", bound); p.Spec.NodeName != "n1" {
				t.Errorf("bound to %s, want n1", p.Spec.NodeName)
			}
			mu.Lock()
			defer mu.Unlock()
			if calls != tt.wantCalls {
				t.Errorf("the extender's bind was called %d times, want %d", calls, tt.wantCalls)
			}
		})
	}
}
