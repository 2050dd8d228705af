package rebalance

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// Planning reads the earlier evictions only once the policy suits the
// snapshot, since a run's read may write the state; the read's error is
// the plan's.
func TestPlanningReadsHistoryOnlyForAPolicyThatSuits(t *testing.T) {
	boom := errors.New("the state ConfigMap is unreadable")
	tests := []struct {
		name       string
		class      string
		historyErr error
		wantErr    string
		wantReads  int
	}{
		{name: "a class the cluster lacks", class: "gold", wantReads: 0,
			wantErr: `p.yaml: evictable.priorityThreshold.name: "gold" names no PriorityClass in dump.yaml; create the class, name another, or give the threshold as value`},
		{name: "history that cannot be read", class: "system-node-critical", historyErr: boom, wantReads: 1, wantErr: boom.Error()},
		{name: "a policy that suits", class: "system-node-critical", wantReads: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := clustertest.Objects(clustertest.Node("hot"), clustertest.Node("idle"), clustertest.DeploymentReplicaSet("shop", "web"))
			for i := range 8 {
				objs.Pods = append(objs.Pods, clustertest.Pod("shop", fmt.Sprintf("web-%d", i)).On("hot").Requests("400m", "").Deployment("web").Obj())
			}
			snap, err := cluster.New(objs, time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
			if err != nil {
				t.Fatal(err)
			}
			pol, err := policy.Load([]byte("apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\ncooldown: 0s\nlimits: {total: 2}\n"+
				"evictable: {priorityThreshold: {name: "+tt.class+"}}\n"+
				"strategies:\n  LowNodeUtilization: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}\n"), "p.yaml")
			if err != nil {
				t.Fatal(err)
			}
			placer, err := engine.New(profile.DefaultProfile())
			if err != nil {
				t.Fatal(err)
			}
			reads := 0
			plan, err := Planning{Policy: pol, Placer: placer, Source: "dump.yaml", History: func(*cluster.Snapshot) ([]cluster.Eviction, error) {
				reads++
				return nil, tt.historyErr
			}}.Plan(snap)
			if reads != tt.wantReads {
				t.Errorf("History called %d times, want %d", reads, tt.wantReads)
			}
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || plan != nil {
					t.Fatalf("Plan() = %v, %v; want no plan and the error %q", plan, err, tt.wantErr)
				}
				return
			}
			if err != nil || len(plan.Moves) == 0 {
				t.Fatalf("Plan() = %+v, %v; want moves from hot to idle", plan, err)
			}
		})
	}
}
