package lownodeutilization_test

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

const lnu20x50 = `
strategies:
  LowNodeUtilization:
    thresholds: {cpu: 20, memory: 20, pods: 20}
    targetThresholds: {cpu: 50, memory: 50, pods: 50}
`

func TestLowNodeUtilization(t *testing.T) {
	tests := []struct {
		name   string
		objs   [][]any
		policy string
		want   []string // "pod from→to"
	}{
		{
			// The descheduler's evictionLimits.node: two pods would bring
			// hot within target, one may leave.
			name: "evictionLimits.node: at most this many pods leave a node",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle"), ct.Node("busy")},
				strategytest.Pods("hot", "web", 7, "400m"),
				strategytest.Pods("busy", "api", 3, "400m"),
			},
			policy: lnu20x50 + "    evictionLimits: {node: 1}\n",
			want:   []string{"shop/web-hot-0 hot→idle"},
		},
		{
			// batch's pods would leave first (the same priority and QoS,
			// then by name); they stay, and count in hot's utilization.
			name: "evictableNamespaces: only the pods of these namespaces leave",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle")},
				strategytest.Pods("hot", "web", 5, "400m"),
				{ct.Pod("batch", "job-0").On("hot").Requests("400m", "").OwnedBy("ReplicaSet", "job"),
					ct.Pod("batch", "job-1").On("hot").Requests("400m", "").OwnedBy("ReplicaSet", "job")},
			},
			policy: lnu20x50 + "    evictableNamespaces: {exclude: [batch]}\n",
			want:   []string{"shop/web-hot-0 hot→idle", "shop/web-hot-1 hot→idle"},
		},
		{
			// kube-scheduler would admit web onto idle, and the taint
			// manager would evict it five minutes later: idle is no room
			// for it.
			name: "a node whose NoExecute taint the pods tolerate only for a while is no room for them",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle").Taint("maintenance", "", corev1.TaintEffectNoExecute)},
				strategytest.Tolerating("hot", "web", 7, new(int64(300))), // 70% cpu
			},
			policy: lnu20x50,
		},
		{
			name: "a node whose NoExecute taint the pods tolerate for good takes them",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle").Taint("maintenance", "", corev1.TaintEffectNoExecute)},
				strategytest.Tolerating("hot", "web", 7, nil),
			},
			policy: lnu20x50,
			want:   []string{"shop/web-hot-0 hot→idle", "shop/web-hot-1 hot→idle"},
		},
		{
			// The example of the descheduler docs: one node above 50%, one
			// below 20%. Pods leave the hot node until it is within target.
			name: "pods leave an over-utilized node for an under-utilized one until it is within target",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle"), ct.Node("busy")},
				strategytest.Pods("hot", "web", 7, "400m"),  // 70% cpu
				strategytest.Pods("busy", "api", 3, "400m"), // 30%: neither
			},
			policy: lnu20x50,
			want:   []string{"shop/web-hot-0 hot→idle", "shop/web-hot-1 hot→idle"},
		},
		{
			name: "the under-utilized node takes pods only up to its target",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle")},
				strategytest.Pods("hot", "web", 4, "1"),     // 100%
				strategytest.Pods("idle", "api", 1, "600m"), // 15%
			},
			policy: lnu20x50,
			// idle can take one 1-CPU pod (15% → 40%) but not two (65%).
			want: []string{"shop/web-hot-0 hot→idle"},
		},
		{
			// Two of hot's pods are terminating: the 800m they hold frees
			// itself. What stays is 50%, not above the target.
			name: "terminating pods do not make a node over-utilized",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle")},
				strategytest.Pods("hot", "web", 5, "400m"), // 50%
				{ct.Pod("shop", "web-old-0").On("hot").Requests("400m", "").Deployment("web").Terminating(),
					ct.Pod("shop", "web-old-1").On("hot").Requests("400m", "").Deployment("web").Terminating()},
			},
			policy: lnu20x50,
		},
		{
			// idle's pods are all terminating: it is under-utilized, and
			// the scheduler still counts the 1.6 CPU they hold, which
			// leaves room for hot's two pods.
			name: "a node whose pods are terminating is under-utilized",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle")},
				strategytest.Pods("hot", "web", 7, "400m"), // 70%
				{ct.DeploymentReplicaSet("shop", "old"),
					ct.Pod("shop", "old-0").On("idle").Requests("800m", "").Deployment("old").Terminating(),
					ct.Pod("shop", "old-1").On("idle").Requests("800m", "").Deployment("old").Terminating()},
			},
			policy: lnu20x50,
			want:   []string{"shop/web-hot-0 hot→idle", "shop/web-hot-1 hot→idle"},
		},
		{
			// The terminating pods hold 3.8 of idle's 4 CPU until they are
			// gone: idle is under-utilized, but no 400m pod fits there yet.
			name: "the capacity terminating pods hold stays held",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle")},
				strategytest.Pods("hot", "web", 7, "400m"), // 70%
				{ct.DeploymentReplicaSet("shop", "old"),
					ct.Pod("shop", "old-0").On("idle").Requests("1900m", "").Deployment("old").Terminating(),
					ct.Pod("shop", "old-1").On("idle").Requests("1900m", "").Deployment("old").Terminating()},
			},
			policy: lnu20x50,
		},
		{
			name: "nothing moves when no node is under-utilized",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("warm")},
				strategytest.Pods("hot", "web", 8, "400m"),
				strategytest.Pods("warm", "api", 3, "400m"),
			},
			policy: lnu20x50,
		},
		{
			name: "numberOfNodes: act only when more nodes than this are under-utilized",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle")},
				strategytest.Pods("hot", "web", 8, "400m"),
			},
			policy: lnu20x50 + "    numberOfNodes: 1\n",
		},
		{
			name: "a cordoned node is never a destination",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle").Cordoned()},
				strategytest.Pods("hot", "web", 8, "400m"),
			},
			policy: lnu20x50,
		},
		{
			name: "a not-ready node is neither a source nor a destination",
			objs: [][]any{
				{ct.Node("hot").NotReady(), ct.Node("idle"), ct.Node("warm")},
				strategytest.Pods("hot", "web", 8, "400m"),
				strategytest.Pods("warm", "api", 6, "400m"), // 60%
			},
			policy: lnu20x50,
			want:   []string{"shop/api-warm-0 warm→idle"},
		},
		{
			name: "a pod that requests none of the over-used resource stays",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle")},
				{ct.DeploymentReplicaSet("shop", "cache"), ct.DeploymentReplicaSet("shop", "web"),
					// memory 75%; cpu-only is first in line (lowest priority)
					// but leaving would not lower memory.
					ct.Pod("shop", "cache-0").On("hot").Requests("", "6Gi").Deployment("cache"),
					ct.Pod("shop", "cache-1").On("hot").Requests("", "6Gi").Deployment("cache"),
					ct.Pod("shop", "cpu-only").On("hot").Requests("100m", "").Priority(-1).Deployment("web")},
			},
			policy: "strategies:\n  LowNodeUtilization:\n    thresholds: {cpu: 20, memory: 20}\n    targetThresholds: {cpu: 50, memory: 50}\n",
			want:   []string{"shop/cache-0 hot→idle"},
		},
		{
			name: "deviation thresholds balance around the mean",
			objs: [][]any{
				{ct.Node("a"), ct.Node("b"), ct.Node("c")},
				strategytest.Pods("a", "web", 8, "400m"), // 80%
				strategytest.Pods("b", "api", 4, "400m"), // 40%
				strategytest.Pods("c", "db", 0, "400m"),  // 0%; mean 40%
			},
			policy: "strategies:\n  LowNodeUtilization:\n    useDeviationThresholds: true\n    thresholds: {cpu: 10}\n    targetThresholds: {cpu: 10}\n",
			// Over: above 50%; under: below 30%. a gives pods to c until a
			// is at 50% or c would pass 50%.
			want: []string{"shop/web-a-0 a→c", "shop/web-a-1 a→c", "shop/web-a-2 a→c"},
		},
		{
			name: "extended resources count like any other",
			objs: [][]any{
				{ct.Node("gpu-1").Allocatable("example.com/gpu", "4"), ct.Node("gpu-2").Allocatable("example.com/gpu", "4")},
				{ct.DeploymentReplicaSet("shop", "train"),
					ct.Pod("shop", "train-0").On("gpu-1").Request("example.com/gpu", "1").Deployment("train"),
					ct.Pod("shop", "train-1").On("gpu-1").Request("example.com/gpu", "1").Deployment("train"),
					ct.Pod("shop", "train-2").On("gpu-1").Request("example.com/gpu", "1").Deployment("train")},
			},
			policy: "strategies:\n  LowNodeUtilization:\n    thresholds: {example.com/gpu: 20}\n    targetThresholds: {example.com/gpu: 50}\n",
			want:   []string{"shop/train-0 gpu-1→gpu-2"},
		},
		{
			name: "an override turns the strategy off for one namespace",
			objs: [][]any{
				{ct.Node("hot"), ct.Node("idle")},
				strategytest.Pods("hot", "web", 8, "400m"),
			},
			policy: lnu20x50 + "overrides:\n- namespaces: [shop]\n  strategies:\n    LowNodeUtilization: {enabled: false}\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			strategytest.Equal(t, "moves", strategytest.Moves(strategytest.Plan(t, strategytest.Snapshot(t, tt.objs...), tt.policy)), tt.want)
		})
	}
}

// Pods leave in order: lowest priority first, then BestEffort, Burstable and
// Guaranteed.
func TestLowNodeUtilizationEvictionOrder(t *testing.T) {
	snap := ct.Snapshot(t, ct.Node("hot"), ct.Node("idle").CPU("64").Memory("256Gi").Pods(1000),
		ct.DeploymentReplicaSet("shop", "web"),
		ct.Pod("shop", "guaranteed").On("hot").Requests("1", "1Gi").Guaranteed().Deployment("web"),
		ct.Pod("shop", "burstable").On("hot").Requests("1", "1Gi").Deployment("web"),
		ct.Pod("shop", "best-effort").On("hot").Deployment("web").Edit(func(p *corev1.Pod) { p.Status.QOSClass = corev1.PodQOSBestEffort }),
		ct.Pod("shop", "important").On("hot").Requests("1", "1Gi").Priority(1000).Deployment("web"),
		ct.Pod("shop", "unimportant").On("hot").Requests("1", "1Gi").Priority(-5).Deployment("web"),
	)
	p := strategytest.Plan(t, snap, "strategies:\n  LowNodeUtilization:\n    thresholds: {pods: 1}\n    targetThresholds: {pods: 2}\n")
	var order []string
	for _, m := range p.Moves {
		order = append(order, strings.TrimPrefix(m.Pod, "shop/"))
	}
	// 5 pods of 110 is 4.5%: above the 2% target until three have left.
	if got, want := strings.Join(order, ","), "unimportant,best-effort,burstable"; got != want {
		t.Errorf("eviction order %s, want %s", got, want)
	}
}

// Among pods equal by cost, priority and QoS, the pod that takes most off
// what the node holds above its targets leaves first, each resource counted
// as a share of the node's allocatable and only as far as it is over.
func TestLowNodeUtilizationRelievesMostFirst(t *testing.T) {
	// hot has 4 cpu and 16Gi: 2800m is 70% (20 points over), 8.8Gi 55%
	// (5 points over).
	hot := func(edit func(name string, b *ct.PodBuilder) *ct.PodBuilder) []any {
		out := []any{ct.Node("hot"), ct.Node("idle"), ct.DeploymentReplicaSet("shop", "web")}
		pod := func(name, cpu, memory string) *ct.PodBuilder {
			return edit(name, ct.Pod("shop", name).On("hot").Requests(cpu, memory).Deployment("web"))
		}
		return append(out,
			pod("a-memory", "100m", "6Gi"),                                                                       // 2.5 points of cpu, 5 of memory's 37.5
			pod("b-both", "900m", "1Gi"),                                                                         // 20 of cpu's 22.5, 5 of memory's 6.25
			pod("c-fill-0", "600m", "614Mi"), pod("c-fill-1", "600m", "614Mi"), pod("c-fill-2", "600m", "614Mi")) // 15 and 3.75 each
	}
	same := func(_ string, b *ct.PodBuilder) *ct.PodBuilder { return b }
	const policy = "strategies:\n  LowNodeUtilization:\n    thresholds: {cpu: 20, memory: 20}\n    targetThresholds: {cpu: 50, memory: 50}\n"
	tests := []struct {
		name string
		objs []any
		want []string
	}{
		{
			// a-memory relieves memory most but leaves cpu at 67.5%:
			// b-both brings both within target at once.
			name: "the pod that brings every resource within target goes, alone",
			objs: hot(same),
			want: []string{"shop/b-both hot→idle"},
		},
		{
			name: "cost comes before relief",
			objs: hot(func(name string, b *ct.PodBuilder) *ct.PodBuilder {
				if name == "b-both" {
					return b.Annotate(corev1.PodDeletionCost, "10")
				}
				return b
			}),
			want: []string{"shop/c-fill-0 hot→idle", "shop/c-fill-1 hot→idle"},
		},
		{
			// idle is tainted, and b-both alone does not tolerate it: the
			// next pods go in its place.
			name: "a pod no target takes does not hold back the others",
			objs: append([]any{ct.Node("hot"), ct.Node("idle").Taint("dedicated", "web", corev1.TaintEffectNoSchedule)}, hot(func(name string, b *ct.PodBuilder) *ct.PodBuilder {
				if name == "b-both" {
					return b
				}
				return b.Toleration(corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpExists})
			})[2:]...),
			want: []string{"shop/c-fill-0 hot→idle", "shop/c-fill-1 hot→idle"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			strategytest.Equal(t, "moves", strategytest.Moves(strategytest.Plan(t, ct.Snapshot(t, tt.objs...), policy)), tt.want)
		})
	}
}

// After a move the node's excess is smaller: the pod that just covers what
// is left goes before a bigger one, which would take more room on the
// targets for no fewer moves.
func TestLowNodeUtilizationWeighsWhatIsLeftAfterEachMove(t *testing.T) {
	// hot has 4 cpu: 3160m is 79%, 29 points above the target.
	objs := []any{ct.Node("hot"), ct.Node("idle"), ct.DeploymentReplicaSet("shop", "web"),
		ct.Pod("shop", "a-25").On("hot").Requests("1", "").Deployment("web"),
		ct.Pod("shop", "b-12").On("hot").Requests("480m", "").Deployment("web"),
		ct.Pod("shop", "c-6").On("hot").Requests("240m", "").Deployment("web")}
	for i := range 9 {
		objs = append(objs, ct.Pod("shop", fmt.Sprintf("d-4-%d", i)).On("hot").Requests("160m", "").Deployment("web"))
	}
	p := strategytest.Plan(t, ct.Snapshot(t, objs...), "strategies:\n  LowNodeUtilization:\n    thresholds: {cpu: 20}\n    targetThresholds: {cpu: 50}\n")
	// a-25 leaves 4 points: b-12, c-6 and d-4-0 each cover them, d-4-0
	// with the least.
	strategytest.Equal(t, "moves", strategytest.Moves(p), []string{"shop/a-25 hot→idle", "shop/d-4-0 hot→idle"})
}
