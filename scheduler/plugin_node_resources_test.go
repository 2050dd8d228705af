package scheduler

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	configv1 "k8s.io/kube-scheduler/config/v1"
)

func TestNodeResourcesFitFilter(t *testing.T) {
	withInit := func(cpu string, sidecar bool) podOption {
		return func(p *corev1.Pod) {
			c := corev1.Container{Name: "init", Image: "busybox", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)},
			}}
			if sidecar {
				c.RestartPolicy = ptrTo(corev1.ContainerRestartPolicyAlways)
			}
			p.Spec.InitContainers = append(p.Spec.InitContainers, c)
		}
	}
	overhead := func(cpu string) podOption {
		return func(p *corev1.Pod) {
			p.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
		}
	}
	tests := []struct {
		name    string
		node    []nodeOption
		others  []corev1.Pod
		pod     []podOption
		message string
	}{{
		name: "a pod that fits",
		pod:  []podOption{requests("4", "16Gi")},
	}, {
		name:    "more CPU than is left",
		others:  []corev1.Pod{mkPod("other", on("node1"), requests("3", ""))},
		pod:     []podOption{requests("2", "")},
		message: "0/1 nodes are available: 1 Insufficient cpu.",
	}, {
		name:    "more memory and CPU than the node has",
		pod:     []podOption{requests("5", "17Gi")},
		message: "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.",
	}, {
		name:    "ephemeral storage",
		node:    []nodeOption{allocatable(corev1.ResourceEphemeralStorage, "10Gi")},
		pod:     []podOption{request(corev1.ResourceEphemeralStorage, "11Gi")},
		message: "0/1 nodes are available: 1 Insufficient ephemeral-storage.",
	}, {
		name:    "the pods count is full",
		node:    []nodeOption{allocatable(corev1.ResourcePods, "1")},
		others:  []corev1.Pod{mkPod("other", on("node1"))},
		message: "0/1 nodes are available: 1 Too many pods.",
	}, {
		name:    "an extended resource the node does not offer",
		pod:     []podOption{request("example.com/foo", "1")},
		message: "0/1 nodes are available: 1 Insufficient example.com/foo.",
	}, {
		name: "an extended resource the node offers",
		node: []nodeOption{allocatable("example.com/foo", "2")},
		pod:  []podOption{request("example.com/foo", "2")},
	}, {
		name:    "hugepages",
		node:    []nodeOption{allocatable("hugepages-2Mi", "64Mi")},
		pod:     []podOption{request("hugepages-2Mi", "128Mi")},
		message: "0/1 nodes are available: 1 Insufficient hugepages-2Mi.",
	}, {
		name:    "an init container asks for more than the app containers: its request counts",
		pod:     []podOption{requests("1", ""), withInit("5", false)},
		message: "0/1 nodes are available: 1 Insufficient cpu.",
	}, {
		name:    "a sidecar's request adds to the app containers'",
		pod:     []podOption{requests("3", ""), withInit("2", true)},
		message: "0/1 nodes are available: 1 Insufficient cpu.",
	}, {
		name:    "pod overhead counts",
		pod:     []podOption{requests("3500m", ""), overhead("1")},
		message: "0/1 nodes are available: 1 Insufficient cpu.",
	}, {
		name:   "a finished pod frees its resources",
		others: []corev1.Pod{mkPod("done", on("node1"), requests("4", ""), func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded })},
		pod:    []podOption{requests("4", "")},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSnapshot(t, []corev1.Node{mkNode("node1", tc.node...)}, append(tc.others, mkPod("incoming", tc.pod...)))
			e := defaultEngine(t)
			res := e.Schedule(s, incoming(t, s), Options{})
			if res.Message != tc.message {
				t.Errorf("message\n %q\nwant\n %q", res.Message, tc.message)
			}
			ok, why := e.Fits(s, incoming(t, s), s.Node("node1"))
			if ok != (tc.message == "") {
				t.Errorf("Fits = %v (%s), want %v", ok, why, tc.message == "")
			}
		})
	}
}

func TestNodeResourcesFitIgnoredResources(t *testing.T) {
	p := DefaultProfile()
	setArgs(t, &p, NodeResourcesFit, &configv1.NodeResourcesFitArgs{IgnoredResources: []string{"example.com/foo"}, IgnoredResourceGroups: []string{"vendor.io"}})
	e, err := NewEngine(p)
	if err != nil {
		t.Fatal(err)
	}
	pod := mkPod("incoming", request("example.com/foo", "1"), request("vendor.io/gpu", "1"), request("example.com/bar", "1"))
	s := newSnapshot(t, []corev1.Node{mkNode("node1")}, []corev1.Pod{pod})
	want := "0/1 nodes are available: 1 Insufficient example.com/bar."
	if res := e.Schedule(s, incoming(t, s), Options{}); res.Message != want {
		t.Errorf("message %q, want %q", res.Message, want)
	}
}

// scoresOf returns each node's score from one plugin, in node order.
func scoresOf(t *testing.T, e *Engine, nodes []corev1.Node, pods []corev1.Pod, plugin string) []int64 {
	t.Helper()
	s := newSnapshot(t, nodes, pods)
	res := e.Schedule(s, incoming(t, s), Options{Explain: true})
	var out []int64
	for _, n := range res.Nodes {
		out = append(out, n.Scores[plugin])
	}
	return out
}

func TestNodeResourcesScores(t *testing.T) {
	// Node a already runs 2 CPUs and 8Gi of its 4 and 16Gi; b is empty. The
	// pod asks for 1 CPU and 2Gi.
	nodes := []corev1.Node{mkNode("a"), mkNode("b")}
	pods := []corev1.Pod{mkPod("existing", on("a"), requests("2", "8Gi")), mkPod("incoming", requests("1", "2Gi"))}
	withStrategy := func(st configv1.ScoringStrategy) *Engine {
		p := DefaultProfile()
		setArgs(t, &p, NodeResourcesFit, &configv1.NodeResourcesFitArgs{ScoringStrategy: &st})
		e, err := NewEngine(p)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	tests := []struct {
		name   string
		engine *Engine
		plugin string
		want   []int64
	}{{
		// a: cpu (4-3)/4 = 25, memory (16-10)/16 = 37; mean 31.
		// b: cpu (4-1)/4 = 75, memory (16-2)/16 = 87; mean 81.
		name: "LeastAllocated", engine: defaultEngine(t), plugin: NodeResourcesFit, want: []int64{31, 81},
	}, {
		// a: cpu 75, memory 62; b: cpu 25, memory 12.
		name:   "MostAllocated",
		engine: withStrategy(configv1.ScoringStrategy{Type: configv1.MostAllocated, Resources: []configv1.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}}),
		plugin: NodeResourcesFit, want: []int64{68, 18},
	}, {
		// CPU weighs 3: a (75*3+62)/4 = 71, b (25*3+12)/4 = 21.
		name:   "MostAllocated with weights",
		engine: withStrategy(configv1.ScoringStrategy{Type: configv1.MostAllocated, Resources: []configv1.ResourceSpec{{Name: "cpu", Weight: 3}, {Name: "memory", Weight: 1}}}),
		plugin: NodeResourcesFit, want: []int64{71, 21},
	}, {
		// The shape 0->0, 100->10 is MostAllocated averaged with rounding:
		// a (75+62)/2 = 68.5 -> 69, b (25+12)/2 = 18.5 -> 19.
		name: "RequestedToCapacityRatio",
		engine: withStrategy(configv1.ScoringStrategy{
			Type:                     configv1.RequestedToCapacityRatio,
			Resources:                []configv1.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}},
			RequestedToCapacityRatio: &configv1.RequestedToCapacityRatioParam{Shape: []configv1.UtilizationShapePoint{{Utilization: 0, Score: 0}, {Utilization: 100, Score: 10}}},
		}),
		plugin: NodeResourcesFit, want: []int64{69, 19},
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
		plugin: NodeResourcesFit, want: []int64{32, 82},
	}, {
		// a: with the pod 3/4 and 10/16 differ by 0.125, std 0.0625 -> 93;
		// without it 1/2 and 1/2 -> 100; 50 + (50 + 93 - 100)/2 = 71.
		// b: with 1/4 and 1/8 -> 93, without 0 and 0 -> 100; also 71.
		name: "BalancedAllocation", engine: defaultEngine(t), plugin: NodeResourcesBalancedAllocation, want: []int64{71, 71},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := scoresOf(t, tc.engine, nodes, pods, tc.plugin); !slices.Equal(got, tc.want) {
				t.Errorf("scores %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBalancedAllocationPrefersTheNodeThePodEvensOut(t *testing.T) {
	// a is CPU-heavy, b memory-heavy; a memory-heavy pod evens out a.
	nodes := []corev1.Node{mkNode("a"), mkNode("b")}
	pods := []corev1.Pod{
		mkPod("cpu-heavy", on("a"), requests("2", "1Gi")),
		mkPod("memory-heavy", on("b"), requests("500m", "8Gi")),
		mkPod("incoming", requests("100m", "6Gi")),
	}
	got := scoresOf(t, defaultEngine(t), nodes, pods, NodeResourcesBalancedAllocation)
	// A pod that leaves the balance as it was scores 75.
	if got[0] <= 75 || got[1] >= 75 {
		t.Errorf("BalancedAllocation scores %v: want a above 75 (the pod evens it) and b below (the pod unbalances it)", got)
	}
}

func TestLeastAllocatedCountsBestEffortPodsAsSmallRequests(t *testing.T) {
	// Two best-effort pods on a, none on b: the scheduler's non-zero
	// requests (100m, 200Mi each) make b the emptier node.
	nodes := []corev1.Node{mkNode("a"), mkNode("b")}
	pods := []corev1.Pod{mkPod("x", on("a")), mkPod("y", on("a")), mkPod("incoming")}
	got := scoresOf(t, defaultEngine(t), nodes, pods, NodeResourcesFit)
	if got[0] >= got[1] {
		t.Errorf("LeastAllocated scores %v: want a below b", got)
	}
}
