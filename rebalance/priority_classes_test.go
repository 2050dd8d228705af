package rebalance

import (
	"context"
	"errors"
	"testing"

	"github.com/kube-rebalancer/rebalancer/cluster/kube/kubetest"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/report"
)

// A cycle whose policy protects pods by a PriorityClass the cluster lacks
// stops with the policy's error before it writes or evicts anything; a
// class the cluster has, or a built-in one, runs.
func TestCycleRefusesAPriorityClassTheClusterLacks(t *testing.T) {
	tests := []struct {
		name, class string
		wantErr     string
	}{
		{name: "no such class", class: "gold",
			wantErr: `p.yaml: evictable.priorityThreshold.name: "gold" names no PriorityClass in the cluster; create the class, name another, or give the threshold as value`},
		{name: "a built-in class", class: "system-node-critical"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := kubetest.Imbalanced()
			var printed *report.Report
			cfg := testConfig(t, client, &printed)
			pol, err := policy.Load([]byte("apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\ncooldown: 0s\nlimits: {total: 2}\n"+
				"evictable: {priorityThreshold: {name: "+tt.class+"}}\n"+
				"strategies:\n  LowNodeUtilization: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}\n"), "p.yaml")
			if err != nil {
				t.Fatal(err)
			}
			cfg.Policy = pol
			err = New(cfg).Cycle(context.Background())
			var writes []string
			for _, a := range client.Actions() {
				if v := a.GetVerb(); v != "get" && v != "list" && v != "watch" {
					writes = append(writes, v+" "+a.GetResource().Resource+"/"+a.GetSubresource())
				}
			}
			if tt.wantErr == "" {
				if err != nil || printed == nil || len(printed.Moves) == 0 {
					t.Fatalf("Cycle() = %v, report %+v; want moves", err, printed)
				}
				return
			}
			var perr *policy.Error
			if !errors.As(err, &perr) || err.Error() != tt.wantErr {
				t.Fatalf("Cycle() error = %v, want the policy's error %q", err, tt.wantErr)
			}
			if len(writes) != 0 || printed != nil {
				t.Errorf("wrote %v and printed %+v; want nothing before the policy is fixed", writes, printed)
			}
		})
	}
}
