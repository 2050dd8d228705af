package rebalance

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
			wantStopped: "step 1 had not settled within --step-timeout 100ms (ReplicaSet shop/web-rs has 7 of 8 replicas Ready)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := kubetest.Imbalanced()
			rs, err := client.AppsV1().ReplicaSets("shop").Get(context.Background(), "web-rs", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			replicas := int32(8)
			rs.Spec.Replicas = &replicas
			rs.Status.ReadyReplicas = 7
			if tt.ready {
				rs.Status.ReadyReplicas = 8
			}
			if _, err := client.AppsV1().ReplicaSets("shop").UpdateStatus(context.Background(), rs, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
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
