package rebalance

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kube-rebalancer/rebalancer/cluster/kube/kubetest"
	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/report"
)

// With one eviction per node per step, the two moves off the hot node go
// in two steps: the second starts only once the ReplicaSet has all its
// replicas Ready again. When it does not within --step-timeout, the run
// stops there, says why, and leaves the second move to the next run.
func TestStepsWaitUntilTheReplacementsAreReady(t *testing.T) {
	tests := []struct {
		name        string
		ready       bool
		wantResults []evictor.Result
		wantStopped string
	}{
		{name: "the replacement is Ready: both steps", ready: true, wantResults: []evictor.Result{evictor.Evicted, evictor.Evicted}},
		{name: "the replacement is not Ready: the run stops after step 1", wantResults: []evictor.Result{evictor.Evicted, evictor.NotAttempted},
			wantStopped: "step 1 had not settled when --step-timeout 100ms reached (waiting for: ReplicaSet shop/web-rs has 7 of 8 replicas Ready)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			client := kubetest.Imbalanced()
			// The ReplicaSet's pods: labelled, Ready, and owned by it.
			rs, err := client.AppsV1().ReplicaSets("shop").Get(ctx, "web-rs", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			replicas := int32(8)
			rs.Spec.Replicas = &replicas
			rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
			pods, err := client.CoreV1().Pods("shop").List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			rs.UID = metav1.GetControllerOf(&pods.Items[0]).UID
			if _, err := client.AppsV1().ReplicaSets("shop").Update(ctx, rs, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			ready := func(p *corev1.Pod) *corev1.Pod {
				p.Labels = map[string]string{"app": "web"}
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
				return p
			}
			for i := range pods.Items {
				if _, err := client.CoreV1().Pods("shop").Update(ctx, ready(&pods.Items[i]), metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			// The ReplicaSet controller's part: a replacement for each
			// evicted pod, Ready at once or never.
			template := pods.Items[0].DeepCopy()
			client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if a.GetSubresource() != "eviction" {
					return false, nil, nil
				}
				ev := a.(k8stesting.CreateAction).GetObject().(*policyv1.Eviction)
				repl := template.DeepCopy()
				repl.Name, repl.UID, repl.ResourceVersion, repl.Spec.NodeName = ev.Name+"-replacement", types.UID(ev.Name+"-replacement"), "", "idle"
				if !tt.ready {
					repl.Status.Conditions = nil
				}
				return false, nil, client.Tracker().Add(repl) // and the eviction goes on
			})
			var printed *report.Report
			cfg := testConfig(t, client, &printed)
			pol, err := policy.Load([]byte("apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\ncooldown: 0s\nlimits: {perNode: 1, total: 2}\n"+
				"strategies:\n  LowNodeUtilization: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}\n"), "p.yaml")
			if err != nil {
				t.Fatal(err)
			}
			cfg.Policy, cfg.StepTimeout = pol, 100*time.Millisecond
			if err := New(cfg).Cycle(context.Background()); err != nil {
				t.Fatal(err)
			}
			var got []evictor.Result
			for i, m := range printed.Moves {
				got = append(got, m.Result)
				if m.Step != i+1 {
					t.Errorf("move %d in step %d, want %d", i, m.Step, i+1)
				}
			}
			if len(got) != len(tt.wantResults) || got[0] != tt.wantResults[0] || got[1] != tt.wantResults[1] {
				t.Errorf("results %v, want %v", got, tt.wantResults)
			}
			if settled := !strings.Contains(printed.Stopped, "had not settled"); !strings.Contains(printed.Stopped, tt.wantStopped) || settled != (tt.wantStopped == "") {
				t.Errorf("stopped %q, want %q", printed.Stopped, tt.wantStopped)
			}
		})
	}
}

// --max-duration bounds the evictions themselves, not only the waits: a
// step under way when it is reached makes no more evictions, and the run
// says so, as a stop rather than a failure.
func TestMaxDurationCutsAStepShort(t *testing.T) {
	client := kubetest.Imbalanced()
	// Each eviction takes longer than the whole bound.
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "eviction" {
			time.Sleep(300 * time.Millisecond)
		}
		return false, nil, nil
	})
	var printed *report.Report
	cfg := testConfig(t, client, &printed)
	cfg.MaxDuration = 200 * time.Millisecond
	start := time.Now()
	if err := New(cfg).Cycle(context.Background()); err != nil {
		t.Fatalf("Cycle() = %v, want a stop, not a failure", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the cycle took %s with --max-duration 200ms", took.Round(time.Millisecond))
	}
	var got []evictor.Result
	for _, m := range printed.Moves {
		got = append(got, m.Result)
		if m.Step != 1 {
			t.Fatalf("move %s in step %d; the test needs one step", m.Pod, m.Step)
		}
	}
	if len(got) != 2 || got[0] != evictor.Evicted || got[1] != evictor.NotAttempted {
		t.Errorf("results %v, want evicted then not-attempted", got)
	}
	if want := "--max-duration 200ms reached during step 1"; !strings.Contains(printed.Stopped, want) {
		t.Errorf("stopped %q, want it to say %q", printed.Stopped, want)
	}
	if msg := printed.Moves[1].Message; msg != "run stopped: --max-duration 200ms reached" {
		t.Errorf("the move not attempted says %q", msg)
	}
}
