package rebalance

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/cluster/kube/kubetest"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/report"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// Runs two minutes apart each read a newer sample of hot (80% of its CPU
// by usage, target 50%) and idle (2%, threshold 20%). With
// consecutiveObservations: 3 the third evicts: the counts of the first two
// are kept in the state ConfigMap, and in memory between the cycles of one
// process; a new process goes on from the ConfigMap's. A dry run writes
// none: its counts last as long as its loop.
func TestConsecutiveObservationsAcrossCycles(t *testing.T) {
	pol, err := policy.Load([]byte("apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\ncooldown: 0s\nlimits: {total: 2}\n"+
		"strategies:\n  LowNodeUtilization:\n    thresholds: {cpu: 20}\n    targetThresholds: {cpu: 50}\n"+
		"    metricsUtilization: {source: KubernetesMetrics, consecutiveObservations: 3}\n"), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	placer, err := engine.New(profile.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		dryRun  bool
		restart bool // the third cycle is a new process's first
		// want, by cycle, the moves and the counts the state holds.
		wantMoves  []int
		wantStored []string
	}{
		{name: "one process", wantMoves: []int{0, 0, 2}, wantStored: []string{"hot over 1, idle under 1", "hot over 2, idle under 2", "hot over 3, idle under 3"}},
		{name: "restarted before the third run", restart: true, wantMoves: []int{0, 0, 2},
			wantStored: []string{"hot over 1, idle under 1", "hot over 2, idle under 2", "hot over 3, idle under 3"}},
		{name: "dry run", dryRun: true, wantMoves: []int{0, 0, 2}, wantStored: []string{"", "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc := kubetest.Imbalanced()
			// metav1.Time travels in whole seconds: each cycle's sample is
			// a second newer than the last.
			at := time.Now().Add(-time.Minute).Truncate(time.Second)
			samples := []cluster.NodeMetrics{clustertest.NodeUsage("hot", "3200m", "1Gi", 0), clustertest.NodeUsage("idle", "100m", "1Gi", 0)}
			client := kubetest.WithMetrics(fc, samples, nil)
			history := &kube.HistoryStore{Client: client, Namespace: "rebalancer", Name: "rebalancer-state", Keep: time.Hour, Heal: !tt.dryRun}
			var printed *report.Report
			cfg := Config{Client: client, Policy: pol, Placer: placer, History: history, DryRun: tt.dryRun,
				Print: func(rep *report.Report) error { printed = rep; return nil }}
			r := New(cfg)
			for cycle := range 3 {
				for i := range samples {
					samples[i].Timestamp = metav1.NewTime(at.Add(time.Duration(cycle) * time.Second))
				}
				if cycle == 2 && tt.restart {
					r = New(cfg)
				}
				if err := r.Cycle(context.Background()); err != nil {
					t.Fatalf("cycle %d: %v", cycle+1, err)
				}
				if got := len(printed.Moves); got != tt.wantMoves[cycle] {
					t.Errorf("cycle %d: %d moves, want %d", cycle+1, got, tt.wantMoves[cycle])
				}
				if _, err := history.Read(context.Background()); err != nil {
					t.Fatal(err)
				}
				if got := stored(history.Observations()); got != tt.wantStored[cycle] {
					t.Errorf("cycle %d: the state holds %q, want %q", cycle+1, got, tt.wantStored[cycle])
				}
			}
		})
	}
}

func stored(obs []cluster.Observation) string {
	var s string
	for i, o := range obs {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %s %d", o.Node, o.Class, o.Count)
	}
	return s
}
