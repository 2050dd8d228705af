package strategies_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

// A node's utilization is what kube-scheduler counts its pods for, which an
// in-place resize moves away from their specs: an Infeasible resize up holds
// only what the node granted, a pending resize down still holds the old
// amount. The node table and the LowNodeUtilization classification follow
// the node, not the specs.

// lnu20x50 balances cpu, memory and pods between 20% and 50%.
const lnu20x50 = `
strategies:
  LowNodeUtilization:
    thresholds: {cpu: 20, memory: 20, pods: 20}
    targetThresholds: {cpu: 50, memory: 50, pods: 50}
`

func TestUtilizationDuringInPlaceResize(t *testing.T) {
	tests := []struct {
		name string
		objs [][]any
		// node and cpu: a node and its CPU utilization before the plan, in
		// the plan's node table.
		node string
		cpu  float64
		want []string
	}{
		{
			// spec 6 CPU on a 4-CPU node: the kubelet says Infeasible and
			// keeps 1 CPU. With two 400m pods the node is at 45%, within
			// target; read from the spec it would look at 170% and shed.
			name: "an Infeasible resize up does not make a half-empty node look full",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle")},
				{ct.DeploymentReplicaSet("shop", "web"),
					ct.Pod("shop", "web-0").On("hot").Requests("6", "").Allocated("1", "").Actual("1", "").
						ResizePending(corev1.PodReasonInfeasible).Deployment("web")},
				strategytest.Pods("hot", "api", 2, "400m"),
			},
			node: "hot", cpu: 45,
		},
		{
			// busy's pod was resized down to 300m in its spec, but the
			// kubelet still runs it with 3 CPU: busy is at 75%, not 7.5%, and
			// no node is under-utilized to take hot's pods.
			name: "a pending resize down shows no room that is not there",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("busy")},
				strategytest.Pods("hot", "web", 7, "400m"), // 70%
				{ct.DeploymentReplicaSet("shop", "db"),
					ct.Pod("shop", "db-0").On("busy").Requests("300m", "").Allocated("3", "").Actual("3", "").
						ResizePending(corev1.PodReasonDeferred).Deployment("db")},
			},
			node: "busy", cpu: 75,
		},
		{
			name: "once the resize is done, the new requests count",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle")},
				strategytest.Pods("hot", "web", 7, "400m"), // 70%
				{ct.DeploymentReplicaSet("shop", "db"),
					ct.Pod("shop", "db-0").On("idle").Requests("300m", "").Allocated("300m", "").Actual("300m", "").Deployment("db")},
			},
			node: "idle", cpu: 7.5,
			want: []string{"shop/web-hot-0 hot→idle", "shop/web-hot-1 hot→idle"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := strategytest.Plan(t, strategytest.Snapshot(t, tt.objs...), lnu20x50)
			strategytest.Equal(t, "moves", strategytest.Moves(p), tt.want)
			found := false
			for _, n := range p.Nodes {
				if n.Name == tt.node {
					found = true
					if got := n.Before["cpu"]; got != tt.cpu {
						t.Errorf("%s cpu before = %v%%, want %v%%", n.Name, got, tt.cpu)
					}
				}
			}
			if !found {
				t.Errorf("node %s is not in the plan's node table", tt.node)
			}
		})
	}
}
