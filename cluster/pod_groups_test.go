package cluster_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

func TestPodQuerySelectsGroups(t *testing.T) {
	web := map[string]string{"app": "web"}
	snap, err := cluster.New(clustertest.Objects(
		clustertest.Pod("a", "w1").Label("app", "web"), clustertest.Pod("a", "w2").Label("app", "web"),
		clustertest.Pod("a", "db").Label("app", "db"), clustertest.Pod("b", "w3").Label("app", "web"),
		clustertest.Namespace("a", map[string]string{"team": "x"}), clustertest.Namespace("b", map[string]string{"team": "y"}),
	), metav1.Now().Time)
	if err != nil {
		t.Fatal(err)
	}
	g := cluster.NewPodGroups(snap.Pods())
	if len(g.Groups) != 3 {
		t.Fatalf("%d groups, want 3: a/web (2 pods), a/db, b/web", len(g.Groups))
	}
	appWeb := labels.SelectorFromSet(web)
	teamY := labels.SelectorFromSet(labels.Set{"team": "y"})
	tests := []struct {
		name string
		q    cluster.PodQuery
		want []string
	}{
		{"listed namespace", cluster.PodQuery{Namespaces: []string{"a"}, Selector: appWeb}, []string{"a/w1", "a/w2"}},
		{"namespace by labels", cluster.PodQuery{NamespaceSelector: teamY, Selector: appWeb}, []string{"b/w3"}},
		{"both", cluster.PodQuery{Namespaces: []string{"a"}, NamespaceSelector: teamY, Selector: appWeb}, []string{"a/w1", "a/w2", "b/w3"}},
		{"every namespace", cluster.PodQuery{NamespaceSelector: labels.Everything(), Selector: labels.Everything()}, []string{"a/db", "a/w1", "a/w2", "b/w3"}},
		{"no namespace", cluster.PodQuery{Selector: labels.Everything()}, nil},
	}
	keys := map[string]bool{}
	for _, tt := range tests {
		var got []string
		for _, id := range g.Select(tt.q, snap.NamespaceLabels) {
			for _, p := range g.Groups[id].Pods {
				got = append(got, p.Key)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: selected %v, want %v", tt.name, got, tt.want)
		}
		keys[tt.q.Key()] = true
	}
	if len(keys) != len(tests) {
		t.Errorf("%d distinct keys for %d different queries", len(keys), len(tests))
	}
}

func TestTopologyDomains(t *testing.T) {
	n := func(name, zone string) *corev1.Node {
		b := clustertest.Node(name).CPU("1").Memory("1Gi")
		if zone != "" {
			b.Zone(zone)
		}
		no := b.Obj()
		return &no
	}
	d := cluster.NewTopologyDomains([]*corev1.Node{n("n1", "b"), n("n2", "a"), n("n3", ""), n("n4", "b")}, corev1.LabelTopologyZone)
	if !slices.Equal(d.Of, []int32{0, 1, -1, 0}) || !slices.Equal(d.Values, []string{"b", "a"}) {
		t.Errorf("domains Of %v Values %v; want [0 1 -1 0] [b a]", d.Of, d.Values)
	}
}

// A snapshot groups its pods once for itself and its forks, which hold the
// same pods; a pod added to it is in the groups it gives afterwards.
func TestSnapshotPodGroupsAreSharedUntilThePodsChange(t *testing.T) {
	snap, err := cluster.New(clustertest.Objects(
		clustertest.Pod("a", "w1").Label("app", "web"), clustertest.Pod("a", "w2").Label("app", "web"),
	), metav1.Now().Time)
	if err != nil {
		t.Fatal(err)
	}
	g := snap.PodGroups()
	if fork := snap.Fork(); fork.PodGroups() != g {
		t.Errorf("a fork grouped the pods again")
	}
	if snap.PodGroups() != g {
		t.Errorf("the snapshot grouped its pods again")
	}
	p := clustertest.Pod("a", "db").Label("app", "db").Obj()
	snap.SetPod(&p, cluster.Workload{})
	if n := len(snap.PodGroups().Groups); n != 2 {
		t.Errorf("%d groups after a/db was added, want 2: a/web and a/db", n)
	}
}
