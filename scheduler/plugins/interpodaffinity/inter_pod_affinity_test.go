package interpodaffinity_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/interpodaffinity"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
	"github.com/kube-rebalancer/rebalancer/scheduler/schedulertest"
)

func namespace(name string, kv ...string) corev1.Namespace {
	l := map[string]string{corev1.LabelMetadataName: name}
	for i := 0; i+1 < len(kv); i += 2 {
		l[kv[i]] = kv[i+1]
	}
	return corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}}
}

// The cases follow https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#inter-pod-affinity-and-anti-affinity.
func TestInterPodAffinityFilter(t *testing.T) {
	zones := []corev1.Node{
		ct.Node("n1").Zone("V").Obj(), ct.Node("n2").Zone("V").Obj(), ct.Node("n3").Zone("W").Obj(), ct.Node("n4").Zone("X").Obj(),
	}
	hosts := []corev1.Node{ct.Node("n1").Obj(), ct.Node("n2").Obj(), ct.Node("n3").Obj(), ct.Node("n4").Obj()}
	store := func(name, node string) corev1.Pod {
		return ct.Pod("default", name).On(node).Label("app", "store").Obj()
	}
	web := func(name, node string) corev1.Pod {
		return ct.Pod("default", name).On(node).Label("app", "web-store").Obj()
	}
	webStore := func() *ct.PodBuilder {
		return schedulertest.IncomingPod().Label("app", "web-store").
			RequirePodAffinity(ct.AffinityTerm(corev1.LabelHostname, ct.Selector("app", "store"))).
			AntiAffinityTerm(ct.AffinityTerm(corev1.LabelHostname, ct.Selector("app", "web-store")))
	}
	dbIn := func(ns string) corev1.Pod { return ct.Pod(ns, "db").On("n2").Label("app", "db").Obj() }
	affinityToDB := func(mod func(*corev1.PodAffinityTerm)) *ct.PodBuilder {
		term := ct.AffinityTerm(corev1.LabelHostname, ct.Selector("app", "db"))
		mod(&term)
		return schedulertest.IncomingPod().RequirePodAffinity(term)
	}
	tests := []struct {
		name       string
		nodes      []corev1.Node
		pods       []corev1.Pod
		namespaces []corev1.Namespace
		pod        *ct.PodBuilder
		feasible   []string
		message    string
	}{{
		name:     "required affinity to security=S1 by zone: the zones that run an S1 pod",
		nodes:    zones,
		pods:     []corev1.Pod{ct.Pod("default", "s1").On("n1").Label("security", "S1").Obj(), ct.Pod("default", "s1-x").On("n4").Label("security", "S1").Obj()},
		pod:      schedulertest.IncomingPod().RequirePodAffinity(ct.AffinityTerm(corev1.LabelTopologyZone, ct.Selector("security", "S1"))),
		feasible: []string{"n1", "n2", "n4"},
	}, {
		name:     "the web store goes next to a cache and away from other web stores",
		nodes:    hosts,
		pods:     []corev1.Pod{store("s1", "n1"), store("s2", "n2"), store("s3", "n3"), web("w1", "n1"), web("w2", "n2")},
		pod:      webStore(),
		feasible: []string{"n3"},
	}, {
		name:    "every cache has its web store: the fourth web store stays pending",
		nodes:   hosts,
		pods:    []corev1.Pod{store("s1", "n1"), store("s2", "n2"), store("s3", "n3"), web("w1", "n1"), web("w2", "n2"), web("w3", "n3")},
		pod:     webStore(),
		message: "0/4 nodes are available: 1 node(s) didn't match pod affinity rules, 3 node(s) didn't match pod anti-affinity rules.",
	}, {
		name:  "an existing pod's required anti-affinity keeps matching pods out of its domain",
		nodes: zones,
		pods: []corev1.Pod{ct.Pod("default", "loner").On("n1").
			AntiAffinityTerm(ct.AffinityTerm(corev1.LabelTopologyZone, ct.Selector("app", "web"))).Obj()},
		pod:      schedulertest.IncomingPod().Label("app", "web"),
		feasible: []string{"n3", "n4"},
	}, {
		// kube-scheduler's InterPodAffinity counts every pod its cache
		// holds on a node, terminating ones too (unlike PodTopologySpread):
		// until the loner is gone, its zone stays closed to web pods.
		name:  "a terminating pod's required anti-affinity still keeps matching pods out",
		nodes: zones,
		pods: []corev1.Pod{ct.Pod("default", "loner").On("n1").Terminating().
			AntiAffinityTerm(ct.AffinityTerm(corev1.LabelTopologyZone, ct.Selector("app", "web"))).Obj()},
		pod:      schedulertest.IncomingPod().Label("app", "web"),
		feasible: []string{"n3", "n4"},
	}, {
		name:     "a terminating pod matches an incoming pod's required anti-affinity",
		nodes:    hosts,
		pods:     []corev1.Pod{ct.Pod("default", "w1").On("n1").Label("app", "web-store").Terminating().Obj()},
		pod:      schedulertest.IncomingPod().AntiAffinityTerm(ct.AffinityTerm(corev1.LabelHostname, ct.Selector("app", "web-store"))),
		feasible: []string{"n2", "n3", "n4"},
	}, {
		name:  "the first pod of a group that wants its own kind may start anywhere",
		nodes: hosts,
		pod: schedulertest.IncomingPod().Label("app", "store").
			RequirePodAffinity(ct.AffinityTerm(corev1.LabelHostname, ct.Selector("app", "store"))),
		feasible: []string{"n1", "n2", "n3", "n4"},
	}, {
		name:  "a pod that wants others, not its own kind, has nowhere to go alone",
		nodes: hosts,
		pod: schedulertest.IncomingPod().Label("app", "web").
			RequirePodAffinity(ct.AffinityTerm(corev1.LabelHostname, ct.Selector("app", "store"))),
		message: "0/4 nodes are available: 4 node(s) didn't match pod affinity rules.",
	}, {
		name:     "a term with no namespaces looks in the pod's own namespace only",
		nodes:    hosts,
		pods:     []corev1.Pod{dbIn("data")},
		pod:      affinityToDB(func(*corev1.PodAffinityTerm) {}),
		message:  "0/4 nodes are available: 4 node(s) didn't match pod affinity rules.",
		feasible: nil,
	}, {
		name:     "namespaces lists where to look",
		nodes:    hosts,
		pods:     []corev1.Pod{dbIn("data")},
		pod:      affinityToDB(func(t *corev1.PodAffinityTerm) { t.Namespaces = []string{"data"} }),
		feasible: []string{"n2"},
	}, {
		name:       "namespaceSelector selects namespaces by their labels",
		nodes:      hosts,
		pods:       []corev1.Pod{dbIn("data")},
		namespaces: []corev1.Namespace{namespace("data", "team", "storage"), namespace("default")},
		pod:        affinityToDB(func(t *corev1.PodAffinityTerm) { t.NamespaceSelector = ct.Selector("team", "storage") }),
		feasible:   []string{"n2"},
	}, {
		name:     "an empty namespaceSelector selects every namespace",
		nodes:    hosts,
		pods:     []corev1.Pod{dbIn("data")},
		pod:      affinityToDB(func(t *corev1.PodAffinityTerm) { t.NamespaceSelector = &metav1.LabelSelector{} }),
		feasible: []string{"n2"},
	}, {
		name:  "an existing pod's anti-affinity term selects the pod's namespace by its labels",
		nodes: hosts,
		pods: []corev1.Pod{ct.Pod("infra", "guard").On("n1").
			AntiAffinityTerm(corev1.PodAffinityTerm{
				TopologyKey: corev1.LabelHostname, LabelSelector: &metav1.LabelSelector{}, NamespaceSelector: ct.Selector("tier", "batch"),
			}).Obj()},
		namespaces: []corev1.Namespace{namespace("default", "tier", "batch"), namespace("infra")},
		pod:        schedulertest.IncomingPod().Label("app", "job"),
		feasible:   []string{"n2", "n3", "n4"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := schedulertest.NewSnapshot(t, tc.nodes, append(slices.Clone(tc.pods), tc.pod.Obj()), tc.namespaces...)
			e := schedulertest.DefaultEngine(t)
			if got := schedulertest.FeasibleNodes(t, e, s); !slices.Equal(got, tc.feasible) {
				t.Errorf("feasible %v, want %v", got, tc.feasible)
			}
			res := e.Schedule(s, schedulertest.Incoming(t, s), engine.Options{})
			if tc.message != "" && res.Message != tc.message {
				t.Errorf("message\n %q\nwant\n %q", res.Message, tc.message)
			}
		})
	}
}

func TestInterPodAffinityExistingAntiAffinityMessage(t *testing.T) {
	nodes := []corev1.Node{ct.Node("n1").Obj(), ct.Node("n2").Obj()}
	loner := func(name, node string) corev1.Pod {
		return ct.Pod("default", name).On(node).
			AntiAffinityTerm(ct.AffinityTerm(corev1.LabelHostname, ct.Selector("app", "web"))).Obj()
	}
	s := schedulertest.NewSnapshot(t, nodes, []corev1.Pod{loner("l1", "n1"), loner("l2", "n2"), schedulertest.IncomingPod().Label("app", "web").Obj()})
	want := "0/2 nodes are available: 2 node(s) didn't satisfy existing pods anti-affinity rules."
	if res := schedulertest.DefaultEngine(t).Schedule(s, schedulertest.Incoming(t, s), engine.Options{}); res.Message != want {
		t.Errorf("message %q, want %q", res.Message, want)
	}
}

func TestInterPodAffinityScore(t *testing.T) {
	zones := []corev1.Node{ct.Node("n1").Zone("V").Obj(), ct.Node("n2").Zone("V").Obj(), ct.Node("n3").Zone("W").Obj(), ct.Node("n4").Zone("X").Obj()}
	tests := []struct {
		name  string
		nodes []corev1.Node
		pods  []corev1.Pod
		pod   *ct.PodBuilder
		want  []int64
	}{{
		// The docs' pod: it must share a zone with security=S1 and would
		// rather not share one with security=S2. Zone V has S2 (-100), X
		// nothing, W S1 (and the required term adds nothing to scores).
		name:  "preferred anti-affinity to security=S2 by zone",
		nodes: zones,
		pods:  []corev1.Pod{ct.Pod("default", "s2").On("n1").Label("security", "S2").Obj(), ct.Pod("default", "s1").On("n3").Label("security", "S1").Obj()},
		pod:   schedulertest.IncomingPod().PreferPodAntiAffinity(100, ct.AffinityTerm(corev1.LabelTopologyZone, ct.Selector("security", "S2"))),
		want:  []int64{0, 0, 100, 100},
	}, {
		// Weights 10 and 30 for two labels: zone V holds both (40), W the
		// second (30), X neither (0). Normalized by the range: 100, 100,
		// 75, 0.
		name:  "preferred affinity adds weights per zone",
		nodes: zones,
		pods: []corev1.Pod{
			ct.Pod("default", "a").On("n1").Label("team", "a").Obj(), ct.Pod("default", "b").On("n2").Label("team", "b").Obj(), ct.Pod("default", "b2").On("n3").Label("team", "b").Obj(),
		},
		pod: schedulertest.IncomingPod().PreferPodAffinity(10, ct.AffinityTerm(corev1.LabelTopologyZone, ct.Selector("team", "a"))).
			PreferPodAffinity(30, ct.AffinityTerm(corev1.LabelTopologyZone, ct.Selector("team", "b"))),
		want: []int64{100, 100, 75, 0},
	}, {
		// An existing pod that requires app=web near it draws app=web pods
		// to its zone by hardPodAffinityWeight (1).
		name:  "existing pods' required affinity, by hardPodAffinityWeight",
		nodes: zones,
		pods: []corev1.Pod{ct.Pod("default", "cache").On("n3").
			RequirePodAffinity(ct.AffinityTerm(corev1.LabelTopologyZone, ct.Selector("app", "web"))).Obj()},
		pod:  schedulertest.IncomingPod().Label("app", "web"),
		want: []int64{0, 0, 100, 0},
	}, {
		// An existing pod that would rather not share its zone with app=web
		// pushes them away.
		name:  "existing pods' preferred anti-affinity",
		nodes: zones,
		pods: []corev1.Pod{ct.Pod("default", "quiet").On("n1").
			PreferPodAntiAffinity(50, ct.AffinityTerm(corev1.LabelTopologyZone, ct.Selector("app", "web"))).Obj()},
		pod:  schedulertest.IncomingPod().Label("app", "web"),
		want: []int64{0, 0, 100, 100},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := schedulertest.ScoresOf(t, schedulertest.DefaultEngine(t), tc.nodes, append(slices.Clone(tc.pods), tc.pod.Obj()), interpodaffinity.Name)
			if !slices.Equal(got, tc.want) {
				t.Errorf("InterPodAffinity scores %v, want %v", got, tc.want)
			}
		})
	}

	p := profile.DefaultProfile()
	schedulertest.SetArgs(t, &p, interpodaffinity.Name, &configv1.InterPodAffinityArgs{IgnorePreferredTermsOfExistingPods: true})
	e, err := engine.New(p)
	if err != nil {
		t.Fatal(err)
	}
	pods := []corev1.Pod{
		ct.Pod("default", "quiet").On("n1").
			PreferPodAntiAffinity(50, ct.AffinityTerm(corev1.LabelTopologyZone, ct.Selector("app", "web"))).Obj(),
		schedulertest.IncomingPod().Label("app", "web").Obj(),
	}
	if got := schedulertest.ScoresOf(t, e, zones, pods, interpodaffinity.Name); !slices.Equal(got, []int64{0, 0, 0, 0}) {
		t.Errorf("with ignorePreferredTermsOfExistingPods, scores %v, want none", got)
	}
}
