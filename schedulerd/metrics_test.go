package schedulerd

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// waitForCount waits until the counter reaches want: the scheduler counts
// an attempt once the API server has answered, which the test may see
// first.
func waitForCount(t *testing.T, c prometheus.Collector, want float64) {
	t.Helper()
	var got float64
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		got = testutil.ToFloat64(c)
		return got >= want, nil
	})
	if err != nil || got != want {
		t.Errorf("counted %v, want %v", got, want)
	}
}

func TestMetricsCountAttemptsAndPlacements(t *testing.T) {
	planned := []cluster.Eviction{{Pod: "shop/web-old", Workload: webWorkload, From: "n1", To: "n3", Strategy: "LowNodeUtilization", At: time.Now()}}
	tests := []struct {
		name    string
		history []cluster.Eviction
		objs    []any
		// result and placement name the series that must count one pod.
		result, placement string
	}{
		{
			name:    "the replacement goes where the plan said",
			history: planned,
			objs: []any{ct.Node("n1"), ct.Node("n2"), ct.Node("n3"), ct.DeploymentReplicaSet("shop", "web"),
				ct.Pod("shop", "filler").On("n3").Requests("2", "4Gi").Deployment("web"), replacement("web-new")},
			result: resultScheduled, placement: placementPlanned,
		},
		{
			name:    "the planned node is full: not back where the workload left",
			history: planned,
			objs: []any{ct.Node("n1"), ct.Node("n2"), ct.Node("n3"), ct.DeploymentReplicaSet("shop", "web"),
				ct.Pod("shop", "blocker").On("n3").Requests("3500m", "").Deployment("web"), replacement("web-new")},
			result: resultScheduled, placement: placementAvoidedLeft,
		},
		{
			name:   "no plan: the profile's best node",
			objs:   []any{ct.Node("n1"), ct.DeploymentReplicaSet("shop", "web"), replacement("web-new")},
			result: resultScheduled, placement: placementBest,
		},
		{
			name:   "a pod that fits nowhere",
			objs:   []any{ct.Node("n1"), ct.DeploymentReplicaSet("shop", "web"), replacement("huge").Requests("8", "")},
			result: resultUnschedulable,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMetrics()
			liveClusterWithMetrics(t, m, tt.history, tt.objs...)
			waitForCount(t, m.attempts.WithLabelValues(tt.result), 1)
			if tt.placement != "" {
				waitForCount(t, m.placements.WithLabelValues(tt.placement), 1)
			}
			for _, other := range []string{placementPlanned, placementAvoidedLeft, placementBest} {
				if other != tt.placement {
					if got := testutil.ToFloat64(m.placements.WithLabelValues(other)); got != 0 {
						t.Errorf("placements{placement=%q} = %v, want 0", other, got)
					}
				}
			}
		})
	}
}
