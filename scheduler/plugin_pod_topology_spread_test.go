package scheduler

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func fooBar() podOption { return podLabels("foo", "bar") }

func constraint(key string, maxSkew int32, action corev1.UnsatisfiableConstraintAction, opts ...func(*corev1.TopologySpreadConstraint)) podOption {
	tc := corev1.TopologySpreadConstraint{MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: action, LabelSelector: selectorFor("foo", "bar")}
	for _, o := range opts {
		o(&tc)
	}
	return spread(tc)
}

func minDomains(n int32) func(*corev1.TopologySpreadConstraint) {
	return func(tc *corev1.TopologySpreadConstraint) { tc.MinDomains = &n }
}

func affinityPolicy(p corev1.NodeInclusionPolicy) func(*corev1.TopologySpreadConstraint) {
	return func(tc *corev1.TopologySpreadConstraint) { tc.NodeAffinityPolicy = &p }
}

func taintsPolicy(p corev1.NodeInclusionPolicy) func(*corev1.TopologySpreadConstraint) {
	return func(tc *corev1.TopologySpreadConstraint) { tc.NodeTaintsPolicy = &p }
}

// fourNodes is the docs' cluster: zoneA holds node1 and node2, zoneB node3
// and node4.
func fourNodes() []corev1.Node {
	return []corev1.Node{
		mkNode("node1", zone("zoneA")), mkNode("node2", zone("zoneA")),
		mkNode("node3", zone("zoneB")), mkNode("node4", zone("zoneB")),
	}
}

// The cases follow https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/.
func TestPodTopologySpreadFilter(t *testing.T) {
	zoneC := func(opts ...nodeOption) corev1.Node {
		return mkNode("node5", append([]nodeOption{zone("zoneC")}, opts...)...)
	}
	notInZoneC := requiredNodeAffinity(match(corev1.LabelTopologyZone, corev1.NodeSelectorOpNotIn, "zoneC"))
	threePods := []corev1.Pod{
		mkPod("p1", on("node1"), fooBar()), mkPod("p2", on("node2"), fooBar()), mkPod("p3", on("node3"), fooBar()),
	}
	tests := []struct {
		name     string
		nodes    []corev1.Node
		pods     []corev1.Pod
		pod      []podOption
		feasible []string
		message  string
	}{{
		name:     "one constraint: zoneA holds 2 foo=bar pods and zoneB 1, so the pod goes to zoneB",
		nodes:    fourNodes(),
		pods:     threePods,
		pod:      []podOption{fooBar(), constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule)},
		feasible: []string{"node3", "node4"},
	}, {
		name:     "two constraints, zone and node: only node4 satisfies both",
		nodes:    fourNodes(),
		pods:     threePods,
		pod:      []podOption{fooBar(), constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule), constraint(corev1.LabelHostname, 1, corev1.DoNotSchedule)},
		feasible: []string{"node4"},
	}, {
		name:  "conflicting constraints: the zone wants zoneB, the node wants node2, and the pod stays pending",
		nodes: []corev1.Node{mkNode("node1", zone("zoneA")), mkNode("node2", zone("zoneA")), mkNode("node3", zone("zoneB"))},
		pods: []corev1.Pod{
			mkPod("p1", on("node1"), fooBar()), mkPod("p2", on("node1"), fooBar()), mkPod("p3", on("node1"), fooBar()),
			mkPod("p4", on("node2"), fooBar()),
			mkPod("p5", on("node3"), fooBar()), mkPod("p6", on("node3"), fooBar()),
		},
		pod:     []podOption{fooBar(), constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule), constraint(corev1.LabelHostname, 1, corev1.DoNotSchedule)},
		message: "0/3 nodes are available: 3 node(s) didn't match pod topology spread constraints.",
	}, {
		name:     "without node affinity, empty zoneC is a domain and the only place to go",
		nodes:    append(fourNodes(), zoneC()),
		pods:     threePods,
		pod:      []podOption{fooBar(), constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule)},
		feasible: []string{"node5"},
	}, {
		name:     "node affinity excluding zoneC takes it out of the domains (nodeAffinityPolicy Honor)",
		nodes:    append(fourNodes(), zoneC()),
		pods:     threePods,
		pod:      []podOption{fooBar(), notInZoneC, constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule)},
		feasible: []string{"node3", "node4"},
	}, {
		name:    "nodeAffinityPolicy Ignore counts zoneC although the pod cannot go there",
		nodes:   append(fourNodes(), zoneC()),
		pods:    threePods,
		pod:     []podOption{fooBar(), notInZoneC, constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule, affinityPolicy(corev1.NodeInclusionPolicyIgnore))},
		message: "0/5 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 4 node(s) didn't match pod topology spread constraints.",
	}, {
		name:    "nodeTaintsPolicy Ignore (the default) counts a tainted zoneC",
		nodes:   append(fourNodes(), zoneC(taint("maintenance", "true", corev1.TaintEffectNoSchedule))),
		pods:    threePods,
		pod:     []podOption{fooBar(), constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule)},
		message: "0/5 nodes are available: 1 node(s) had untolerated taint {maintenance: true}, 4 node(s) didn't match pod topology spread constraints.",
	}, {
		name:     "nodeTaintsPolicy Honor leaves out nodes whose taints the pod does not tolerate",
		nodes:    append(fourNodes(), zoneC(taint("maintenance", "true", corev1.TaintEffectNoSchedule))),
		pods:     threePods,
		pod:      []podOption{fooBar(), constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule, taintsPolicy(corev1.NodeInclusionPolicyHonor))},
		feasible: []string{"node3", "node4"},
	}, {
		name:    "minDomains 3 with 2 zones: the global minimum counts as 0",
		nodes:   fourNodes(),
		pods:    []corev1.Pod{mkPod("p1", on("node1"), fooBar()), mkPod("p3", on("node3"), fooBar())},
		pod:     []podOption{fooBar(), constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule, minDomains(3))},
		message: "0/4 nodes are available: 4 node(s) didn't match pod topology spread constraints.",
	}, {
		name:     "minDomains 2 with 2 zones: the real minimum counts",
		nodes:    fourNodes(),
		pods:     []corev1.Pod{mkPod("p1", on("node1"), fooBar()), mkPod("p3", on("node3"), fooBar())},
		pod:      []podOption{fooBar(), constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule, minDomains(2))},
		feasible: []string{"node1", "node2", "node3", "node4"},
	}, {
		name:  "matchLabelKeys: only the pods of the pod's own revision count",
		nodes: fourNodes(),
		pods: []corev1.Pod{
			mkPod("old1", on("node1"), podLabels("app", "web", "pod-template-hash", "old")),
			mkPod("old2", on("node2"), podLabels("app", "web", "pod-template-hash", "old")),
			mkPod("new1", on("node3"), podLabels("app", "web", "pod-template-hash", "new")),
		},
		pod: []podOption{podLabels("app", "web", "pod-template-hash", "new"), spread(corev1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: selectorFor("app", "web"), MatchLabelKeys: []string{"pod-template-hash"},
		})},
		feasible: []string{"node1", "node2"},
	}, {
		name:  "without matchLabelKeys every revision counts",
		nodes: fourNodes(),
		pods: []corev1.Pod{
			mkPod("old1", on("node1"), podLabels("app", "web", "pod-template-hash", "old")),
			mkPod("old2", on("node2"), podLabels("app", "web", "pod-template-hash", "old")),
			mkPod("new1", on("node3"), podLabels("app", "web", "pod-template-hash", "new")),
		},
		pod: []podOption{podLabels("app", "web", "pod-template-hash", "new"), spread(corev1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: selectorFor("app", "web"),
		})},
		feasible: []string{"node3", "node4"},
	}, {
		name:    "a node without the topology key is not a candidate",
		nodes:   []corev1.Node{mkNode("node1", zone("zoneA")), mkNode("node2")},
		pod:     []podOption{fooBar(), constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule), nodeSelector(corev1.LabelHostname, "node2")},
		message: "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) didn't match pod topology spread constraints (missing required label).",
	}, {
		name:  "terminating pods and pods of other namespaces do not count",
		nodes: fourNodes(),
		pods: []corev1.Pod{
			mkPod("p1", on("node1"), fooBar()), mkPod("p2", on("node2"), fooBar()),
			mkPod("leaving", on("node3"), fooBar(), func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{Time: testNow.Add(-time.Minute)} }),
			mkPod("elsewhere", on("node4"), fooBar(), inNamespace("other")),
			mkPod("p3", on("node3"), fooBar()),
		},
		pod:      []podOption{fooBar(), constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule)},
		feasible: []string{"node3", "node4"},
	}, {
		name:     "ScheduleAnyway filters nothing",
		nodes:    fourNodes(),
		pods:     threePods,
		pod:      []podOption{fooBar(), constraint(corev1.LabelTopologyZone, 1, corev1.ScheduleAnyway)},
		feasible: []string{"node1", "node2", "node3", "node4"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSnapshot(t, tc.nodes, append(slices.Clone(tc.pods), mkPod("incoming", tc.pod...)))
			e := defaultEngine(t)
			if got := feasibleNodes(t, e, s); !slices.Equal(got, tc.feasible) {
				t.Errorf("feasible %v, want %v", got, tc.feasible)
			}
			if res := e.Schedule(s, incoming(t, s), Options{}); res.Message != tc.message {
				t.Errorf("message\n %q\nwant\n %q", res.Message, tc.message)
			}
		})
	}
}

func TestPodTopologySpreadScore(t *testing.T) {
	pods := []corev1.Pod{
		mkPod("p1", on("node1"), fooBar()), mkPod("p2", on("node2"), fooBar()), mkPod("p3", on("node3"), fooBar()),
		mkPod("incoming", fooBar(), constraint(corev1.LabelTopologyZone, 1, corev1.ScheduleAnyway)),
	}
	// Two zones weigh log(2+2); zoneA's nodes count 2 pods (2*1.386 ->
	// 3), zoneB's 1 (1.386 -> 1). Normalized: 100*(3+1-3)/3 = 33 and
	// 100*(3+1-1)/3 = 100.
	got := scoresOf(t, defaultEngine(t), fourNodes(), pods, PodTopologySpread)
	if want := []int64{33, 33, 100, 100}; !slices.Equal(got, want) {
		t.Errorf("PodTopologySpread scores %v, want %v", got, want)
	}
}

func TestPodTopologySpreadSystemDefaultsSpreadReplicas(t *testing.T) {
	nodes := []corev1.Node{mkNode("a", zone("z1")), mkNode("b", zone("z1")), mkNode("c", zone("z2"))}
	replica := func(name, node string) corev1.Pod {
		opts := []podOption{ownedBy("ReplicaSet", "web-5d4f"), podLabels("app", "web")}
		if node != "" {
			opts = append(opts, on(node))
		}
		return mkPod(name, opts...)
	}
	pods := []corev1.Pod{replica("web-1", "a"), replica("web-2", "a"), replica("web-3", "b"), replica("incoming", "")}
	s := newSnapshot(t, nodes, pods)
	res := defaultEngine(t).Schedule(s, incoming(t, s), Options{Explain: true})
	if res.Node != "c" {
		t.Errorf("the replica went to %q, want c, the node and zone without replicas", res.Node)
	}
	sa, sb, sc := res.Nodes[0].Scores[PodTopologySpread], res.Nodes[1].Scores[PodTopologySpread], res.Nodes[2].Scores[PodTopologySpread]
	if !(sa < sb && sb < sc) {
		t.Errorf("PodTopologySpread scores a=%d b=%d c=%d, want a < b < c", sa, sb, sc)
	}

	// A bare pod has no controller to spread by: the plugin does not score it.
	s = newSnapshot(t, nodes, []corev1.Pod{replica("web-1", "a"), mkPod("incoming", podLabels("app", "web"))})
	res = defaultEngine(t).Schedule(s, incoming(t, s), Options{Explain: true})
	if _, scored := res.Nodes[0].Scores[PodTopologySpread]; scored {
		t.Errorf("a bare pod got a PodTopologySpread score")
	}
}
