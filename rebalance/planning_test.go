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

// A pending pod for which an earlier run holds a node counts as
// nominated there: the plan does not serve it again while the moves made
// for it settle, nor move other pods into that room. A hold that is over
// or too old counts for nothing.
func TestPlanningCountsHeldPodsAsNominated(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		holds     []cluster.Hold
		wantMoves int
	}{
		{name: "no hold: two moves make room", wantMoves: 2},
		{name: "a live hold: nothing moves", wantMoves: 0,
			holds: []cluster.Hold{{Pod: "shop/big-0", UID: "uid-big-0", Node: "n0", At: now.Add(-time.Minute)}}},
		{name: "a hold of another pod under the name: two moves", wantMoves: 2,
			holds: []cluster.Hold{{Pod: "shop/big-0", UID: "uid-earlier", Node: "n0", At: now.Add(-time.Minute)}}},
		{name: "a hold older than cluster.HoldKeep: two moves", wantMoves: 2,
			holds: []cluster.Hold{{Pod: "shop/big-0", UID: "uid-big-0", Node: "n0", At: now.Add(-cluster.HoldKeep - time.Minute)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := clustertest.Objects(clustertest.DeploymentReplicaSet("shop", "web"), clustertest.DeploymentReplicaSet("shop", "big"))
			for i := range 3 {
				n := fmt.Sprintf("n%d", i)
				objs.Nodes = append(objs.Nodes, clustertest.Node(n).CPU("3").Obj())
				for _, s := range []string{"a", "b"} {
					objs.Pods = append(objs.Pods, clustertest.Pod("shop", "web-"+n+"-"+s).On(n).Requests("750m", "").Deployment("web").Obj())
				}
			}
			big := clustertest.Pod("shop", "big-0").Requests("3", "").Deployment("big").Unschedulable().Obj()
			big.UID = "uid-big-0"
			objs.Pods = append(objs.Pods, big)
			snap, err := cluster.New(objs, now)
			if err != nil {
				t.Fatal(err)
			}
			pol, err := policy.Load([]byte("apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\nimplicitBudgets: false\n"+
				"strategies:\n  DefragmentForPendingPods: {minPendingAge: 0s}\n"), "p.yaml")
			if err != nil {
				t.Fatal(err)
			}
			placer, err := engine.New(profile.DefaultProfile())
			if err != nil {
				t.Fatal(err)
			}
			plan, err := Planning{Policy: pol, Placer: placer, Source: "dump.yaml", Holds: func() []cluster.Hold { return tt.holds }}.Plan(snap)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Moves) != tt.wantMoves {
				t.Errorf("moves %+v, want %d (notes %+v)", plan.Moves, tt.wantMoves, plan.Notes)
			}
		})
	}
}
