package scheduler

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"
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
		mkNode("n1", zone("V")), mkNode("n2", zone("V")), mkNode("n3", zone("W")), mkNode("n4", zone("X")),
	}
	hosts := []corev1.Node{mkNode("n1"), mkNode("n2"), mkNode("n3"), mkNode("n4")}
	store := func(name, node string) corev1.Pod { return mkPod(name, on(node), podLabels("app", "store")) }
	web := func(name, node string) corev1.Pod { return mkPod(name, on(node), podLabels("app", "web-store")) }
	webStore := []podOption{
		podLabels("app", "web-store"),
		requiredPodAffinity(podAffinityTerm(corev1.LabelHostname, selectorFor("app", "store"))),
		requiredPodAntiAffinity(podAffinityTerm(corev1.LabelHostname, selectorFor("app", "web-store"))),
	}
	dbIn := func(ns string) corev1.Pod { return mkPod("db", on("n2"), podLabels("app", "db"), inNamespace(ns)) }
	affinityToDB := func(mod func(*corev1.PodAffinityTerm)) podOption {
		term := podAffinityTerm(corev1.LabelHostname, selectorFor("app", "db"))
		mod(&term)
		return requiredPodAffinity(term)
	}
	tests := []struct {
		name       string
		nodes      []corev1.Node
		pods       []corev1.Pod
		namespaces []corev1.Namespace
		pod        []podOption
		feasible   []string
		message    string
	}{{
		name:     "required affinity to security=S1 by zone: the zones that run an S1 pod",
		nodes:    zones,
		pods:     []corev1.Pod{mkPod("s1", on("n1"), podLabels("security", "S1")), mkPod("s1-x", on("n4"), podLabels("security", "S1"))},
		pod:      []podOption{requiredPodAffinity(podAffinityTerm(corev1.LabelTopologyZone, selectorFor("security", "S1")))},
		feasible: []string{"n1", "n2", "n4"},
	}, {
		name:     "the web store goes next to a cache and away from other web stores",
		nodes:    hosts,
		pods:     []corev1.Pod{store("s1", "n1"), store("s2", "n2"), store("s3", "n3"), web("w1", "n1"), web("w2", "n2")},
		pod:      webStore,
		feasible: []string{"n3"},
	}, {
		name:    "every cache has its web store: the fourth web store stays pending",
		nodes:   hosts,
		pods:    []corev1.Pod{store("s1", "n1"), store("s2", "n2"), store("s3", "n3"), web("w1", "n1"), web("w2", "n2"), web("w3", "n3")},
		pod:     webStore,
		message: "0/4 nodes are available: 1 node(s) didn't match pod affinity rules, 3 node(s) didn't match pod anti-affinity rules.",
	}, {
		name:     "an existing pod's required anti-affinity keeps matching pods out of its domain",
		nodes:    zones,
		pods:     []corev1.Pod{mkPod("loner", on("n1"), requiredPodAntiAffinity(podAffinityTerm(corev1.LabelTopologyZone, selectorFor("app", "web"))))},
		pod:      []podOption{podLabels("app", "web")},
		feasible: []string{"n3", "n4"},
	}, {
		name:     "the first pod of a group that wants its own kind may start anywhere",
		nodes:    hosts,
		pod:      []podOption{podLabels("app", "store"), requiredPodAffinity(podAffinityTerm(corev1.LabelHostname, selectorFor("app", "store")))},
		feasible: []string{"n1", "n2", "n3", "n4"},
	}, {
		name:    "a pod that wants others, not its own kind, has nowhere to go alone",
		nodes:   hosts,
		pod:     []podOption{podLabels("app", "web"), requiredPodAffinity(podAffinityTerm(corev1.LabelHostname, selectorFor("app", "store")))},
		message: "0/4 nodes are available: 4 node(s) didn't match pod affinity rules.",
	}, {
		name:     "a term with no namespaces looks in the pod's own namespace only",
		nodes:    hosts,
		pods:     []corev1.Pod{dbIn("data")},
		pod:      []podOption{affinityToDB(func(*corev1.PodAffinityTerm) {})},
		message:  "0/4 nodes are available: 4 node(s) didn't match pod affinity rules.",
		feasible: nil,
	}, {
		name:     "namespaces lists where to look",
		nodes:    hosts,
		pods:     []corev1.Pod{dbIn("data")},
		pod:      []podOption{affinityToDB(func(t *corev1.PodAffinityTerm) { t.Namespaces = []string{"data"} })},
		feasible: []string{"n2"},
	}, {
		name:       "namespaceSelector selects namespaces by their labels",
		nodes:      hosts,
		pods:       []corev1.Pod{dbIn("data")},
		namespaces: []corev1.Namespace{namespace("data", "team", "storage"), namespace("default")},
		pod:        []podOption{affinityToDB(func(t *corev1.PodAffinityTerm) { t.NamespaceSelector = selectorFor("team", "storage") })},
		feasible:   []string{"n2"},
	}, {
		name:     "an empty namespaceSelector selects every namespace",
		nodes:    hosts,
		pods:     []corev1.Pod{dbIn("data")},
		pod:      []podOption{affinityToDB(func(t *corev1.PodAffinityTerm) { t.NamespaceSelector = &metav1.LabelSelector{} })},
		feasible: []string{"n2"},
	}, {
		name:  "an existing pod's anti-affinity term selects the pod's namespace by its labels",
		nodes: hosts,
		pods: []corev1.Pod{mkPod("guard", on("n1"), inNamespace("infra"), requiredPodAntiAffinity(corev1.PodAffinityTerm{
			TopologyKey: corev1.LabelHostname, LabelSelector: &metav1.LabelSelector{}, NamespaceSelector: selectorFor("tier", "batch"),
		}))},
		namespaces: []corev1.Namespace{namespace("default", "tier", "batch"), namespace("infra")},
		pod:        []podOption{podLabels("app", "job")},
		feasible:   []string{"n2", "n3", "n4"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSnapshot(t, tc.nodes, append(slices.Clone(tc.pods), mkPod("incoming", tc.pod...)), tc.namespaces...)
			e := defaultEngine(t)
			if got := feasibleNodes(t, e, s); !slices.Equal(got, tc.feasible) {
				t.Errorf("feasible %v, want %v", got, tc.feasible)
			}
			res := e.Schedule(s, incoming(t, s), Options{})
			if tc.message != "" && res.Message != tc.message {
				t.Errorf("message\n %q\nwant\n %q", res.Message, tc.message)
			}
		})
	}
}

func TestInterPodAffinityExistingAntiAffinityMessage(t *testing.T) {
	nodes := []corev1.Node{mkNode("n1"), mkNode("n2")}
	loner := func(name, node string) corev1.Pod {
		return mkPod(name, on(node), requiredPodAntiAffinity(podAffinityTerm(corev1.LabelHostname, selectorFor("app", "web"))))
	}
	s := newSnapshot(t, nodes, []corev1.Pod{loner("l1", "n1"), loner("l2", "n2"), mkPod("incoming", podLabels("app", "web"))})
	want := "0/2 nodes are available: 2 node(s) didn't satisfy existing pods anti-affinity rules."
	if res := defaultEngine(t).Schedule(s, incoming(t, s), Options{}); res.Message != want {
		t.Errorf("message %q, want %q", res.Message, want)
	}
}

func TestInterPodAffinityScore(t *testing.T) {
	zones := []corev1.Node{mkNode("n1", zone("V")), mkNode("n2", zone("V")), mkNode("n3", zone("W")), mkNode("n4", zone("X"))}
	tests := []struct {
		name  string
		nodes []corev1.Node
		pods  []corev1.Pod
		pod   []podOption
		want  []int64
	}{{
		// The docs' pod: it must share a zone with security=S1 and would
		// rather not share one with security=S2. Zone V has S2 (-100), X
		// nothing, W S1 (and the required term adds nothing to scores).
		name:  "preferred anti-affinity to security=S2 by zone",
		nodes: zones,
		pods:  []corev1.Pod{mkPod("s2", on("n1"), podLabels("security", "S2")), mkPod("s1", on("n3"), podLabels("security", "S1"))},
		pod:   []podOption{preferredPodAntiAffinity(100, podAffinityTerm(corev1.LabelTopologyZone, selectorFor("security", "S2")))},
		want:  []int64{0, 0, 100, 100},
	}, {
		// Weights 10 and 30 for two labels: zone V holds both (40), W the
		// second (30), X neither (0). Normalized by the range: 100, 100,
		// 75, 0.
		name:  "preferred affinity adds weights per zone",
		nodes: zones,
		pods: []corev1.Pod{
			mkPod("a", on("n1"), podLabels("team", "a")), mkPod("b", on("n2"), podLabels("team", "b")), mkPod("b2", on("n3"), podLabels("team", "b")),
		},
		pod: []podOption{
			preferredPodAffinity(10, podAffinityTerm(corev1.LabelTopologyZone, selectorFor("team", "a"))),
			preferredPodAffinity(30, podAffinityTerm(corev1.LabelTopologyZone, selectorFor("team", "b"))),
		},
		want: []int64{100, 100, 75, 0},
	}, {
		// An existing pod that requires app=web near it draws app=web pods
		// to its zone by hardPodAffinityWeight (1).
		name:  "existing pods' required affinity, by hardPodAffinityWeight",
		nodes: zones,
		pods:  []corev1.Pod{mkPod("cache", on("n3"), requiredPodAffinity(podAffinityTerm(corev1.LabelTopologyZone, selectorFor("app", "web"))))},
		pod:   []podOption{podLabels("app", "web")},
		want:  []int64{0, 0, 100, 0},
	}, {
		// An existing pod that would rather not share its zone with app=web
		// pushes them away.
		name:  "existing pods' preferred anti-affinity",
		nodes: zones,
		pods:  []corev1.Pod{mkPod("quiet", on("n1"), preferredPodAntiAffinity(50, podAffinityTerm(corev1.LabelTopologyZone, selectorFor("app", "web"))))},
		pod:   []podOption{podLabels("app", "web")},
		want:  []int64{0, 0, 100, 100},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := scoresOf(t, defaultEngine(t), tc.nodes, append(slices.Clone(tc.pods), mkPod("incoming", tc.pod...)), InterPodAffinity)
			if !slices.Equal(got, tc.want) {
				t.Errorf("InterPodAffinity scores %v, want %v", got, tc.want)
			}
		})
	}

	p := DefaultProfile()
	setArgs(t, &p, InterPodAffinity, &configv1.InterPodAffinityArgs{IgnorePreferredTermsOfExistingPods: true})
	e, err := NewEngine(p)
	if err != nil {
		t.Fatal(err)
	}
	pods := []corev1.Pod{
		mkPod("quiet", on("n1"), preferredPodAntiAffinity(50, podAffinityTerm(corev1.LabelTopologyZone, selectorFor("app", "web")))),
		mkPod("incoming", podLabels("app", "web")),
	}
	if got := scoresOf(t, e, zones, pods, InterPodAffinity); !slices.Equal(got, []int64{0, 0, 0, 0}) {
		t.Errorf("with ignorePreferredTermsOfExistingPods, scores %v, want none", got)
	}
}
