package podtopologyspread_test

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/podtopologyspread"
	"github.com/kube-rebalancer/rebalancer/scheduler/schedulertest"
)

func constraint(key string, maxSkew int32, action corev1.UnsatisfiableConstraintAction, opts ...func(*corev1.TopologySpreadConstraint)) corev1.TopologySpreadConstraint {
	tc := corev1.TopologySpreadConstraint{MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: action, LabelSelector: ct.Selector("foo", "bar")}
	for _, o := range opts {
		o(&tc)
	}
	return tc
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
		ct.Node("node1").Zone("zoneA").Obj(), ct.Node("node2").Zone("zoneA").Obj(),
		ct.Node("node3").Zone("zoneB").Obj(), ct.Node("node4").Zone("zoneB").Obj(),
	}
}

// The cases follow https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/.
func TestPodTopologySpreadFilter(t *testing.T) {
	zoneC := func() *ct.NodeBuilder { return ct.Node("node5").Zone("zoneC") }
	notInZoneC := ct.NodeSelectorTerm(corev1.LabelTopologyZone, corev1.NodeSelectorOpNotIn, "zoneC")
	threePods := []corev1.Pod{
		ct.Pod("default", "p1").On("node1").Label("foo", "bar").Obj(), ct.Pod("default", "p2").On("node2").Label("foo", "bar").Obj(), ct.Pod("default", "p3").On("node3").Label("foo", "bar").Obj(),
	}
	tests := []struct {
		name     string
		nodes    []corev1.Node
		pods     []corev1.Pod
		pod      *ct.PodBuilder
		feasible []string
		message  string
	}{{
		name:  "one constraint: zoneA holds 2 foo=bar pods and zoneB 1, so the pod goes to zoneB",
		nodes: fourNodes(),
		pods:  threePods,
		pod: schedulertest.IncomingPod().Label("foo", "bar").
			SpreadConstraint(constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule)),
		feasible: []string{"node3", "node4"},
	}, {
		name:  "two constraints, zone and node: only node4 satisfies both",
		nodes: fourNodes(),
		pods:  threePods,
		pod: schedulertest.IncomingPod().Label("foo", "bar").
			SpreadConstraint(constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule)).
			SpreadConstraint(constraint(corev1.LabelHostname, 1, corev1.DoNotSchedule)),
		feasible: []string{"node4"},
	}, {
		name:  "conflicting constraints: the zone wants zoneB, the node wants node2, and the pod stays pending",
		nodes: []corev1.Node{ct.Node("node1").Zone("zoneA").Obj(), ct.Node("node2").Zone("zoneA").Obj(), ct.Node("node3").Zone("zoneB").Obj()},
		pods: []corev1.Pod{
			ct.Pod("default", "p1").On("node1").Label("foo", "bar").Obj(), ct.Pod("default", "p2").On("node1").Label("foo", "bar").Obj(), ct.Pod("default", "p3").On("node1").Label("foo", "bar").Obj(),
			ct.Pod("default", "p4").On("node2").Label("foo", "bar").Obj(),
			ct.Pod("default", "p5").On("node3").Label("foo", "bar").Obj(), ct.Pod("default", "p6").On("node3").Label("foo", "bar").Obj(),
		},
		pod: schedulertest.IncomingPod().Label("foo", "bar").
			SpreadConstraint(constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule)).
			SpreadConstraint(constraint(corev1.LabelHostname, 1, corev1.DoNotSchedule)),
		message: "0/3 nodes are available: 3 node(s) didn't match pod topology spread constraints.",
	}, {
		name:  "without node affinity, empty zoneC is a domain and the only place to go",
		nodes: append(fourNodes(), zoneC().Obj()),
		pods:  threePods,
		pod: schedulertest.IncomingPod().Label("foo", "bar").
			SpreadConstraint(constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule)),
		feasible: []string{"node5"},
	}, {
		name:     "node affinity excluding zoneC takes it out of the domains (nodeAffinityPolicy Honor)",
		nodes:    append(fourNodes(), zoneC().Obj()),
		pods:     threePods,
		pod:      schedulertest.IncomingPod().Label("foo", "bar").RequireNodeAffinity(notInZoneC).SpreadConstraint(constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule)),
		feasible: []string{"node3", "node4"},
	}, {
		name:    "nodeAffinityPolicy Ignore counts zoneC although the pod cannot go there",
		nodes:   append(fourNodes(), zoneC().Obj()),
		pods:    threePods,
		pod:     schedulertest.IncomingPod().Label("foo", "bar").RequireNodeAffinity(notInZoneC).SpreadConstraint(constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule, affinityPolicy(corev1.NodeInclusionPolicyIgnore))),
		message: "0/5 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 4 node(s) didn't match pod topology spread constraints.",
	}, {
		name:  "nodeTaintsPolicy Ignore (the default) counts a tainted zoneC",
		nodes: append(fourNodes(), zoneC().Taint("maintenance", "true", corev1.TaintEffectNoSchedule).Obj()),
		pods:  threePods,
		pod: schedulertest.IncomingPod().Label("foo", "bar").
			SpreadConstraint(constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule)),
		message: "0/5 nodes are available: 1 node(s) had untolerated taint {maintenance: true}, 4 node(s) didn't match pod topology spread constraints.",
	}, {
		name:  "nodeTaintsPolicy Honor leaves out nodes whose taints the pod does not tolerate",
		nodes: append(fourNodes(), zoneC().Taint("maintenance", "true", corev1.TaintEffectNoSchedule).Obj()),
		pods:  threePods,
		pod: schedulertest.IncomingPod().Label("foo", "bar").
			SpreadConstraint(constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule, taintsPolicy(corev1.NodeInclusionPolicyHonor))),
		feasible: []string{"node3", "node4"},
	}, {
		name:  "minDomains 3 with 2 zones: the global minimum counts as 0",
		nodes: fourNodes(),
		pods:  []corev1.Pod{ct.Pod("default", "p1").On("node1").Label("foo", "bar").Obj(), ct.Pod("default", "p3").On("node3").Label("foo", "bar").Obj()},
		pod: schedulertest.IncomingPod().Label("foo", "bar").
			SpreadConstraint(constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule, minDomains(3))),
		message: "0/4 nodes are available: 4 node(s) didn't match pod topology spread constraints.",
	}, {
		name:  "minDomains 2 with 2 zones: the real minimum counts",
		nodes: fourNodes(),
		pods:  []corev1.Pod{ct.Pod("default", "p1").On("node1").Label("foo", "bar").Obj(), ct.Pod("default", "p3").On("node3").Label("foo", "bar").Obj()},
		pod: schedulertest.IncomingPod().Label("foo", "bar").
			SpreadConstraint(constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule, minDomains(2))),
		feasible: []string{"node1", "node2", "node3", "node4"},
	}, {
		name:  "matchLabelKeys: only the pods of the pod's own revision count",
		nodes: fourNodes(),
		pods: []corev1.Pod{
			ct.Pod("default", "old1").On("node1").Label("app", "web").Label("pod-template-hash", "old").Obj(),
			ct.Pod("default", "old2").On("node2").Label("app", "web").Label("pod-template-hash", "old").Obj(),
			ct.Pod("default", "new1").On("node3").Label("app", "web").Label("pod-template-hash", "new").Obj(),
		},
		pod: schedulertest.IncomingPod().Label("app", "web").
			Label("pod-template-hash", "new").
			SpreadConstraint(corev1.TopologySpreadConstraint{
				MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
				LabelSelector: ct.Selector("app", "web"), MatchLabelKeys: []string{"pod-template-hash"},
			}),
		feasible: []string{"node1", "node2"},
	}, {
		name:  "without matchLabelKeys every revision counts",
		nodes: fourNodes(),
		pods: []corev1.Pod{
			ct.Pod("default", "old1").On("node1").Label("app", "web").Label("pod-template-hash", "old").Obj(),
			ct.Pod("default", "old2").On("node2").Label("app", "web").Label("pod-template-hash", "old").Obj(),
			ct.Pod("default", "new1").On("node3").Label("app", "web").Label("pod-template-hash", "new").Obj(),
		},
		pod: schedulertest.IncomingPod().Label("app", "web").
			Label("pod-template-hash", "new").
			SpreadConstraint(corev1.TopologySpreadConstraint{
				MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: ct.Selector("app", "web"),
			}),
		feasible: []string{"node3", "node4"},
	}, {
		name:  "a node without the topology key is not a candidate",
		nodes: []corev1.Node{ct.Node("node1").Zone("zoneA").Obj(), ct.Node("node2").Obj()},
		pod: schedulertest.IncomingPod().Label("foo", "bar").
			SpreadConstraint(constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule)).
			NodeSelector(corev1.LabelHostname, "node2"),
		message: "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) didn't match pod topology spread constraints (missing required label).",
	}, {
		name:  "terminating pods and pods of other namespaces do not count",
		nodes: fourNodes(),
		pods: []corev1.Pod{
			ct.Pod("default", "p1").On("node1").Label("foo", "bar").Obj(), ct.Pod("default", "p2").On("node2").Label("foo", "bar").Obj(),
			ct.Pod("default", "leaving").On("node3").
				Label("foo", "bar").
				Edit(func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{Time: ct.Now.Add(-time.Minute)} }).Obj(),
			ct.Pod("other", "elsewhere").On("node4").Label("foo", "bar").Obj(),
			ct.Pod("default", "p3").On("node3").Label("foo", "bar").Obj(),
		},
		pod: schedulertest.IncomingPod().Label("foo", "bar").
			SpreadConstraint(constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule)),
		feasible: []string{"node3", "node4"},
	}, {
		name:  "ScheduleAnyway filters nothing",
		nodes: fourNodes(),
		pods:  threePods,
		pod: schedulertest.IncomingPod().Label("foo", "bar").
			SpreadConstraint(constraint(corev1.LabelTopologyZone, 1, corev1.ScheduleAnyway)),
		feasible: []string{"node1", "node2", "node3", "node4"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := schedulertest.NewSnapshot(t, tc.nodes, append(slices.Clone(tc.pods), tc.pod.Obj()))
			e := schedulertest.DefaultEngine(t)
			if got := schedulertest.FeasibleNodes(t, e, s); !slices.Equal(got, tc.feasible) {
				t.Errorf("feasible %v, want %v", got, tc.feasible)
			}
			if res := e.Schedule(s, schedulertest.Incoming(t, s), engine.Options{}); res.Message != tc.message {
				t.Errorf("message\n %q\nwant\n %q", res.Message, tc.message)
			}
		})
	}
}

func TestPodTopologySpreadScore(t *testing.T) {
	pods := []corev1.Pod{
		ct.Pod("default", "p1").On("node1").Label("foo", "bar").Obj(), ct.Pod("default", "p2").On("node2").Label("foo", "bar").Obj(), ct.Pod("default", "p3").On("node3").Label("foo", "bar").Obj(),
		schedulertest.IncomingPod().
			Label("foo", "bar").
			SpreadConstraint(constraint(corev1.LabelTopologyZone, 1, corev1.ScheduleAnyway)).Obj(),
	}
	// Two zones weigh log(2+2); zoneA's nodes count 2 pods (2*1.386 ->
	// 3), zoneB's 1 (1.386 -> 1). Normalized: 100*(3+1-3)/3 = 33 and
	// 100*(3+1-1)/3 = 100.
	got := schedulertest.ScoresOf(t, schedulertest.DefaultEngine(t), fourNodes(), pods, podtopologyspread.Name)
	if want := []int64{33, 33, 100, 100}; !slices.Equal(got, want) {
		t.Errorf("PodTopologySpread scores %v, want %v", got, want)
	}
}

func TestPodTopologySpreadSystemDefaultsSpreadReplicas(t *testing.T) {
	nodes := []corev1.Node{ct.Node("a").Zone("z1").Obj(), ct.Node("b").Zone("z1").Obj(), ct.Node("c").Zone("z2").Obj()}
	replica := func(name string) *ct.PodBuilder {
		return ct.Pod("default", name).OwnedBy("ReplicaSet", "web-5d4f").Label("app", "web")
	}
	pods := []corev1.Pod{replica("web-1").On("a").Obj(), replica("web-2").On("a").Obj(), replica("web-3").On("b").Obj(), replica("incoming").Pending().Obj()}
	s := schedulertest.NewSnapshot(t, nodes, pods)
	res := schedulertest.DefaultEngine(t).Schedule(s, schedulertest.Incoming(t, s), engine.Options{Explain: true})
	if res.Node != "c" {
		t.Errorf("the replica went to %q, want c, the node and zone without replicas", res.Node)
	}
	sa, sb, sc := res.Nodes[0].Scores[podtopologyspread.Name], res.Nodes[1].Scores[podtopologyspread.Name], res.Nodes[2].Scores[podtopologyspread.Name]
	if !(sa < sb && sb < sc) {
		t.Errorf("PodTopologySpread scores a=%d b=%d c=%d, want a < b < c", sa, sb, sc)
	}

	// A bare pod has no controller to spread by: the plugin does not score it.
	s = schedulertest.NewSnapshot(t, nodes, []corev1.Pod{replica("web-1").On("a").Obj(), schedulertest.IncomingPod().Label("app", "web").Obj()})
	res = schedulertest.DefaultEngine(t).Schedule(s, schedulertest.Incoming(t, s), engine.Options{Explain: true})
	if _, scored := res.Nodes[0].Scores[podtopologyspread.Name]; scored {
		t.Errorf("a bare pod got a PodTopologySpread score")
	}
}
