package noderesources_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	configv1 "k8s.io/kube-scheduler/config/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/noderesources"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
	"github.com/kube-rebalancer/rebalancer/scheduler/schedulertest"
)

func TestNodeResourcesFitFilter(t *testing.T) {
	initContainer := func(cpu string) corev1.Container {
		return corev1.Container{Name: "init", Image: "busybox", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)},
		}}
	}
	tests := []struct {
		name    string
		node    *ct.NodeBuilder
		others  []corev1.Pod
		pod     *ct.PodBuilder
		message string
	}{{
		name: "a pod that fits",
		pod:  schedulertest.IncomingPod().Requests("4", "16Gi"),
	}, {
		name:    "more CPU than is left",
		others:  []corev1.Pod{ct.Pod("default", "other").On("node1").Requests("3", "").Obj()},
		pod:     schedulertest.IncomingPod().Requests("2", ""),
		message: "0/1 nodes are available: 1 Insufficient cpu.",
	}, {
		name:    "more memory and CPU than the node has",
		pod:     schedulertest.IncomingPod().Requests("5", "17Gi"),
		message: "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.",
	}, {
		name:    "ephemeral storage",
		node:    ct.Node("node1").Allocatable(corev1.ResourceEphemeralStorage, "10Gi"),
		pod:     schedulertest.IncomingPod().Request(corev1.ResourceEphemeralStorage, "11Gi"),
		message: "0/1 nodes are available: 1 Insufficient ephemeral-storage.",
	}, {
		name:    "the pods count is full",
		node:    ct.Node("node1").Allocatable(corev1.ResourcePods, "1"),
		others:  []corev1.Pod{ct.Pod("default", "other").On("node1").Obj()},
		message: "0/1 nodes are available: 1 Too many pods.",
	}, {
		name:    "an extended resource the node does not offer",
		pod:     schedulertest.IncomingPod().Request("example.com/foo", "1"),
		message: "0/1 nodes are available: 1 Insufficient example.com/foo.",
	}, {
		name: "an extended resource the node offers",
		node: ct.Node("node1").Allocatable("example.com/foo", "2"),
		pod:  schedulertest.IncomingPod().Request("example.com/foo", "2"),
	}, {
		name:    "hugepages",
		node:    ct.Node("node1").Allocatable("hugepages-2Mi", "64Mi"),
		pod:     schedulertest.IncomingPod().Request("hugepages-2Mi", "128Mi"),
		message: "0/1 nodes are available: 1 Insufficient hugepages-2Mi.",
	}, {
		name:    "an init container asks for more than the app containers: its request counts",
		pod:     schedulertest.IncomingPod().Requests("1", "").InitContainer(initContainer("5")),
		message: "0/1 nodes are available: 1 Insufficient cpu.",
	}, {
		name:    "a sidecar's request adds to the app containers'",
		pod:     schedulertest.IncomingPod().Requests("3", "").Sidecar(initContainer("2")),
		message: "0/1 nodes are available: 1 Insufficient cpu.",
	}, {
		name:    "pod overhead counts",
		pod:     schedulertest.IncomingPod().Requests("3500m", "").Overhead(corev1.ResourceCPU, "1"),
		message: "0/1 nodes are available: 1 Insufficient cpu.",
	}, {
		name: "a finished pod frees its resources",
		others: []corev1.Pod{ct.Pod("default", "done").On("node1").
			Requests("4", "").
			Phase(corev1.PodSucceeded).Obj()},
		pod: schedulertest.IncomingPod().Requests("4", ""),
	}, {
		// kube-scheduler counts a scheduled pod for the larger of its spec,
		// allocated and actual resources while a resize is under way.
		name: "a resize down the kubelet has not applied yet frees nothing",
		others: []corev1.Pod{ct.Pod("default", "other").On("node1").
			Requests("1", "").Allocated("3", "").Actual("3", "").ResizePending(corev1.PodReasonDeferred).Obj()},
		pod:     schedulertest.IncomingPod().Requests("2", ""),
		message: "0/1 nodes are available: 1 Insufficient cpu.",
	}, {
		name: "an Infeasible resize up holds only what the node granted",
		others: []corev1.Pod{ct.Pod("default", "other").On("node1").
			Requests("6", "").Allocated("1", "").Actual("1", "").ResizePending(corev1.PodReasonInfeasible).Obj()},
		pod: schedulertest.IncomingPod().Requests("3", ""),
	}, {
		// The pod being placed is a new pod: it asks for its spec.
		name:    "a pod being placed asks for its spec, whatever its old status said",
		pod:     schedulertest.IncomingPod().Requests("6", "").Allocated("1", "").Actual("1", "").ResizePending(corev1.PodReasonInfeasible),
		message: "0/1 nodes are available: 1 Insufficient cpu.",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			node, pod := tc.node, tc.pod
			if node == nil {
				node = ct.Node("node1")
			}
			if pod == nil {
				pod = schedulertest.IncomingPod()
			}
			s := schedulertest.NewSnapshot(t, []corev1.Node{node.Obj()}, append(tc.others, pod.Obj()))
			e := schedulertest.DefaultEngine(t)
			res := e.Schedule(s, schedulertest.Incoming(t, s), engine.Options{})
			if res.Message != tc.message {
				t.Errorf("message\n %q\nwant\n %q", res.Message, tc.message)
			}
			ok, why := e.Fits(s, schedulertest.Incoming(t, s), s.Node("node1"))
			if ok != (tc.message == "") {
				t.Errorf("Fits = %v (%s), want %v", ok, why, tc.message == "")
			}
		})
	}
}

func TestNodeResourcesFitIgnoredResources(t *testing.T) {
	p := profile.DefaultProfile()
	schedulertest.SetArgs(t, &p, noderesources.FitName, &configv1.NodeResourcesFitArgs{IgnoredResources: []string{"example.com/foo"}, IgnoredResourceGroups: []string{"vendor.io"}})
	e, err := engine.New(p)
	if err != nil {
		t.Fatal(err)
	}
	pod := schedulertest.IncomingPod().
		Request("example.com/foo", "1").
		Request("vendor.io/gpu", "1").
		Request("example.com/bar", "1").Obj()
	s := schedulertest.NewSnapshot(t, []corev1.Node{ct.Node("node1").Obj()}, []corev1.Pod{pod})
	want := "0/1 nodes are available: 1 Insufficient example.com/bar."
	if res := e.Schedule(s, schedulertest.Incoming(t, s), engine.Options{}); res.Message != want {
		t.Errorf("message %q, want %q", res.Message, want)
	}
}

// scoresOf returns each node's score from one plugin, in node order.
func TestNodeResourcesScores(t *testing.T) {
	// Node a already runs 2 CPUs and 8Gi of its 4 and 16Gi; b is empty. The
	// pod asks for 1 CPU and 2Gi.
	nodes := []corev1.Node{ct.Node("a").Obj(), ct.Node("b").Obj()}
	pods := []corev1.Pod{ct.Pod("default", "existing").On("a").Requests("2", "8Gi").Obj(), schedulertest.IncomingPod().Requests("1", "2Gi").Obj()}
	withStrategy := func(st configv1.ScoringStrategy) *engine.Engine {
		p := profile.DefaultProfile()
		schedulertest.SetArgs(t, &p, noderesources.FitName, &configv1.NodeResourcesFitArgs{ScoringStrategy: &st})
		e, err := engine.New(p)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	tests := []struct {
		name   string
		engine *engine.Engine
		plugin string
		want   []int64
	}{{
		// a: cpu (4-3)/4 = 25, memory (16-10)/16 = 37; mean 31.
		// b: cpu (4-1)/4 = 75, memory (16-2)/16 = 87; mean 81.
		name: "LeastAllocated", engine: schedulertest.DefaultEngine(t), plugin: noderesources.FitName, want: []int64{31, 81},
	}, {
		// a: cpu 75, memory 62; b: cpu 25, memory 12.
		name:   "MostAllocated",
		engine: withStrategy(configv1.ScoringStrategy{Type: configv1.MostAllocated, Resources: []configv1.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}}),
		plugin: noderesources.FitName, want: []int64{68, 18},
	}, {
		// CPU weighs 3: a (75*3+62)/4 = 71, b (25*3+12)/4 = 21.
		name:   "MostAllocated with weights",
		engine: withStrategy(configv1.ScoringStrategy{Type: configv1.MostAllocated, Resources: []configv1.ResourceSpec{{Name: "cpu", Weight: 3}, {Name: "memory", Weight: 1}}}),
		plugin: noderesources.FitName, want: []int64{71, 21},
	}, {
		// The shape 0->0, 100->10 is MostAllocated averaged with rounding:
		// a (75+62)/2 = 68.5 -> 69, b (25+12)/2 = 18.5 -> 19.
		name: "RequestedToCapacityRatio",
		engine: withStrategy(configv1.ScoringStrategy{
			Type:                     configv1.RequestedToCapacityRatio,
			Resources:                []configv1.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}},
			RequestedToCapacityRatio: &configv1.RequestedToCapacityRatioParam{Shape: []configv1.UtilizationShapePoint{{Utilization: 0, Score: 0}, {Utilization: 100, Score: 10}}},
		}),
		plugin: noderesources.FitName, want: []int64{69, 19},
	}, {
		// The bin-packing shape 0->10, 100->0 inverts it: a 100-75=25 and
		// 100-62=38 (interpolated 100-(100*62/100)), mean 31.5 -> 32;
		// b 75 and 88, mean 81.5 -> 82.
		name: "RequestedToCapacityRatio decreasing",
		engine: withStrategy(configv1.ScoringStrategy{
			Type:                     configv1.RequestedToCapacityRatio,
			Resources:                []configv1.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}},
			RequestedToCapacityRatio: &configv1.RequestedToCapacityRatioParam{Shape: []configv1.UtilizationShapePoint{{Utilization: 0, Score: 10}, {Utilization: 100, Score: 0}}},
		}),
		plugin: noderesources.FitName, want: []int64{32, 82},
	}, {
		// a: with the pod 3/4 and 10/16 differ by 0.125, std 0.0625 -> 93;
		// without it 1/2 and 1/2 -> 100; 50 + (50 + 93 - 100)/2 = 71.
		// b: with 1/4 and 1/8 -> 93, without 0 and 0 -> 100; also 71.
		name: "BalancedAllocation", engine: schedulertest.DefaultEngine(t), plugin: noderesources.BalancedAllocationName, want: []int64{71, 71},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := schedulertest.ScoresOf(t, tc.engine, nodes, pods, tc.plugin); !slices.Equal(got, tc.want) {
				t.Errorf("scores %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBalancedAllocationPrefersTheNodeThePodEvensOut(t *testing.T) {
	// a is CPU-heavy, b memory-heavy; a memory-heavy pod evens out a.
	nodes := []corev1.Node{ct.Node("a").Obj(), ct.Node("b").Obj()}
	pods := []corev1.Pod{
		ct.Pod("default", "cpu-heavy").On("a").Requests("2", "1Gi").Obj(),
		ct.Pod("default", "memory-heavy").On("b").Requests("500m", "8Gi").Obj(),
		schedulertest.IncomingPod().Requests("100m", "6Gi").Obj(),
	}
	got := schedulertest.ScoresOf(t, schedulertest.DefaultEngine(t), nodes, pods, noderesources.BalancedAllocationName)
	// A pod that leaves the balance as it was scores 75.
	if got[0] <= 75 || got[1] >= 75 {
		t.Errorf("BalancedAllocation scores %v: want a above 75 (the pod evens it) and b below (the pod unbalances it)", got)
	}
}

func TestLeastAllocatedCountsBestEffortPodsAsSmallRequests(t *testing.T) {
	// Two best-effort pods on a, none on b: the scheduler's non-zero
	// requests (100m, 200Mi each) make b the emptier node.
	nodes := []corev1.Node{ct.Node("a").Obj(), ct.Node("b").Obj()}
	pods := []corev1.Pod{ct.Pod("default", "x").On("a").Obj(), ct.Pod("default", "y").On("a").Obj(), schedulertest.IncomingPod().Obj()}
	got := schedulertest.ScoresOf(t, schedulertest.DefaultEngine(t), nodes, pods, noderesources.FitName)
	if got[0] >= got[1] {
		t.Errorf("LeastAllocated scores %v: want a below b", got)
	}
}
