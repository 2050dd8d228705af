package strategies_test

import (
	"fmt"
	"testing"
	"time"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

const lnuByUsage = `
strategies:
  LowNodeUtilization:
    thresholds: {cpu: 20}
    targetThresholds: {cpu: 50}
    metricsUtilization: {source: KubernetesMetrics}
`

const lnuByQuery = `
metricsProviders:
- source: Prometheus
  prometheus: {url: 'http://prometheus:9090'}
strategies:
  LowNodeUtilization:
    thresholds: {MetricResource: 30}
    targetThresholds: {MetricResource: 70}
    metricsUtilization: {source: Prometheus, prometheus: {query: 'instance:node_cpu:rate:sum'}}
`

// using gives each of a node's pods made by strategytest.Pods() a sample of cpu.
func using(node, app string, n int, cpu string) []any {
	var out []any
	for i := range n {
		out = append(out, ct.PodUsage("shop", fmt.Sprintf("%s-%s-%d", app, node, i), cpu, "100Mi"))
	}
	return out
}

// With metricsUtilization, nodes are classified by what their pods use
// (4-CPU nodes; thresholds cpu 20%, targets 50%), as in the descheduler's
// docs; the replacements are still placed by requests.
func TestLowNodeUtilizationByUsage(t *testing.T) {
	tests := []struct {
		name      string
		objs      [][]any
		policy    string
		want      []string // "pod from→to"
		notes     []string // "node: text"
		byRequest int      // pods counted by their requests
	}{
		{
			// hot's two pods request 20% but burn 75%; busy's pods request
			// 70% and use 25%. By requests busy would be relieved; by usage
			// only hot is, and one pod is enough (80% → 42.5%).
			name: "a node light by requests and hot by usage is relieved, one busy by requests only is not",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle"), ct.Node("busy")},
				strategytest.Pods("hot", "web", 2, "400m"), using("hot", "web", 2, "1500m"),
				strategytest.Pods("busy", "api", 7, "400m"), using("busy", "api", 7, "140m"),
				{ct.NodeUsage("hot", "3200m", "1Gi", 0), ct.NodeUsage("idle", "200m", "1Gi", 0), ct.NodeUsage("busy", "1", "1Gi", 0)},
			},
			policy: lnuByUsage,
			want:   []string{"shop/web-hot-0 hot→idle"},
		},
		{
			// Each of hot's pods uses 1.2 CPU (30% of idle). The first takes
			// idle from 5% to 35%; a second would take it to 65%, above its
			// target, although by requests (400m each) idle has room for many.
			name: "a moved pod's usage arrives on its target, which takes no more than its target by usage",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle")},
				strategytest.Pods("hot", "web", 3, "400m"), using("hot", "web", 3, "1200m"),
				{ct.NodeUsage("hot", "3800m", "1Gi", 0), ct.NodeUsage("idle", "200m", "1Gi", 0)},
			},
			policy: lnuByUsage,
			want:   []string{"shop/web-hot-0 hot→idle"},
			// hot, at 65% then, needed web-hot-1 gone too.
			notes: []string{": 1 pod not proposed, counted here rather than listed as skipped (1 no-fit); shop/web-hot-1: " +
				"no under-utilized node that admits it (taints, node affinity, the other strategies' conditions) has room for it below LowNodeUtilization's target utilization"},
		},
		{
			// Without samples, hot's pods count by their requests: 1 CPU each.
			// hot at 90% sheds two of them to be within 50%.
			name: "pods without a sample count by their requests",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle"), ct.Node("spare")},
				strategytest.Pods("hot", "web", 3, "1"),
				{ct.NodeUsage("hot", "3600m", "1Gi", 0), ct.NodeUsage("idle", "200m", "1Gi", 0), ct.NodeUsage("spare", "200m", "1Gi", 0)},
			},
			policy:    lnuByUsage,
			want:      []string{"shop/web-hot-0 hot→idle", "shop/web-hot-1 hot→spare"},
			byRequest: 3,
		},
		{
			name: "a node whose sample is stale is neither a source nor a target",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle")},
				strategytest.Pods("hot", "web", 2, "400m"), using("hot", "web", 2, "1500m"),
				{ct.NodeUsage("hot", "3200m", "1Gi", 10*time.Minute), ct.NodeUsage("idle", "200m", "1Gi", 0)},
			},
			policy: lnuByUsage,
			notes:  []string{"hot: neither a source nor a target: its metrics sample is stale (10m0s old, more than 3m0s)"},
		},
		{
			name: "a node without a sample is neither a source nor a target",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle"), ct.Node("new")},
				strategytest.Pods("hot", "web", 2, "400m"), using("hot", "web", 2, "1500m"),
				{ct.NodeUsage("hot", "3200m", "1Gi", 0), ct.NodeUsage("idle", "3000m", "1Gi", 0)},
			},
			policy: lnuByUsage,
			notes:  []string{"new: neither a source nor a target: has no metrics.k8s.io sample"},
		},
		{
			name: "metrics that could not be read: nothing moves, never a plan on zeros",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle")},
				strategytest.Pods("hot", "web", 7, "400m"),
			},
			policy:    lnuByUsage,
			notes:     []string{": nodes are classified by metrics.k8s.io usage, which could not be read (no node has a sample): nothing is balanced this cycle"},
			byRequest: 0,
		},
		{
			// A query rates nodes, not pods: one pod leaves hot this cycle,
			// as in the descheduler, and idle takes one.
			name: "Prometheus: the node the query rates above target gives one pod a cycle",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle"), ct.Node("cold")},
				strategytest.Pods("hot", "web", 5, "400m"),
				{ct.NodeRating("hot", 0.9), ct.NodeRating("idle", 0.1), ct.NodeRating("cold", 0.5)},
			},
			policy: lnuByQuery,
			want:   []string{"shop/web-hot-0 hot→idle"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := strategytest.Plan(t, strategytest.Snapshot(t, tt.objs...), tt.policy)
			strategytest.Equal(t, "moves", strategytest.Moves(p), tt.want)
			var notes []string
			for _, n := range p.Notes {
				notes = append(notes, n.Node+": "+n.Text)
			}
			strategytest.Equal(t, "notes", notes, tt.notes)
			if p.Usage == nil {
				t.Fatal("plan.usage is unset")
			}
			if p.Usage.PodsByRequests != tt.byRequest {
				t.Errorf("podsByRequests = %d, want %d", p.Usage.PodsByRequests, tt.byRequest)
			}
		})
	}
}

const hnuByUsage = `
strategies:
  HighNodeUtilization:
    thresholds: {cpu: 50}
    metricsUtilization: {source: KubernetesMetrics}
`

const hnuByQuery = `
metricsProviders:
- source: Prometheus
  prometheus: {url: 'http://prometheus:9090'}
strategies:
  HighNodeUtilization:
    thresholds: {MetricResource: 50}
    metricsUtilization: {source: Prometheus, prometheus: {query: 'instance:node_cpu:rate:sum'}}
`

// HighNodeUtilization with metricsUtilization empties the nodes whose pods
// use little (4-CPU nodes; threshold cpu 50%), whatever they request, onto
// the nodes that use the most; the replacements still need room by
// requests.
func TestHighNodeUtilizationByUsage(t *testing.T) {
	tests := []struct {
		name   string
		objs   [][]any
		policy string
		want   []string // "pod from→to"
		notes  []string // "node: text"
	}{
		{
			// reserved's pods request 75% and use 10%; hot's request 25% and
			// use 80%. By requests hot would be emptied onto reserved; by
			// usage reserved is, onto hot, which has room for the requests.
			name: "a node busy by requests and idle by usage is emptied onto the most used",
			objs: [][]any{
				{ct.Node("reserved"), ct.Node("hot")},
				strategytest.Pods("reserved", "batch", 3, "1"), using("reserved", "batch", 3, "100m"),
				strategytest.Pods("hot", "web", 1, "1"), using("hot", "web", 1, "3"),
				{ct.NodeUsage("reserved", "400m", "1Gi", 0), ct.NodeUsage("hot", "3200m", "1Gi", 0)},
			},
			policy: hnuByUsage,
			want:   []string{"shop/batch-reserved-0 reserved→hot", "shop/batch-reserved-1 reserved→hot", "shop/batch-reserved-2 reserved→hot"},
		},
		{
			// The same cluster balanced on requests: hot is the one under
			// 50%, and reserved takes its pod.
			name: "on requests, the same cluster empties the other node",
			objs: [][]any{
				{ct.Node("reserved"), ct.Node("hot")},
				strategytest.Pods("reserved", "batch", 3, "1"), using("reserved", "batch", 3, "100m"),
				strategytest.Pods("hot", "web", 1, "1"), using("hot", "web", 1, "3"),
				{ct.NodeUsage("reserved", "400m", "1Gi", 0), ct.NodeUsage("hot", "3200m", "1Gi", 0)},
			},
			policy: "strategies:\n  HighNodeUtilization:\n    thresholds: {cpu: 50}\n",
			want:   []string{"shop/web-hot-0 hot→reserved"},
		},
		{
			// quiet's sample is ten minutes old: it may have become busy
			// since, so it is not emptied, and nothing else is under 50%.
			name: "a node whose sample is stale is neither emptied nor a target",
			objs: [][]any{
				{ct.Node("quiet"), ct.Node("hot")},
				strategytest.Pods("quiet", "batch", 1, "1"),
				strategytest.Pods("hot", "web", 1, "1"), using("hot", "web", 1, "3"),
				{ct.NodeUsage("quiet", "100m", "1Gi", 10*time.Minute), ct.NodeUsage("hot", "3200m", "1Gi", 0)},
			},
			policy: hnuByUsage,
			notes:  []string{"quiet: neither a source nor a target: its metrics sample is stale (10m0s old, more than 3m0s)"},
		},
		{
			name: "metrics that could not be read: nothing is emptied",
			objs: [][]any{
				{ct.Node("quiet"), ct.Node("hot")},
				strategytest.Pods("quiet", "batch", 1, "1"),
				strategytest.Pods("hot", "web", 1, "3"),
			},
			policy: hnuByUsage,
			notes:  []string{": nodes are classified by metrics.k8s.io usage, which could not be read (no node has a sample): nothing is balanced this cycle"},
		},
		{
			name: "Prometheus: the node the query rates lowest is emptied onto the highest",
			objs: [][]any{
				{ct.Node("low"), ct.Node("mid"), ct.Node("high")},
				strategytest.Pods("low", "batch", 2, "1"),
				strategytest.Pods("mid", "api", 1, "1"),
				strategytest.Pods("high", "web", 1, "1"),
				{ct.NodeRating("low", 0.1), ct.NodeRating("mid", 0.6), ct.NodeRating("high", 0.8)},
			},
			policy: hnuByQuery,
			want:   []string{"shop/batch-low-0 low→high", "shop/batch-low-1 low→high"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := strategytest.Plan(t, strategytest.Snapshot(t, tt.objs...), tt.policy)
			strategytest.Equal(t, "moves", strategytest.Moves(p), tt.want)
			var notes []string
			for _, n := range p.Notes {
				notes = append(notes, n.Node+": "+n.Text)
			}
			strategytest.Equal(t, "notes", notes, tt.notes)
		})
	}
}
