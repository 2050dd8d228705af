package engine

import (
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// incomingPod starts the pod the tests schedule: pending, in namespace
// "default", named "incoming" as incoming expects.
func incomingPod() *ct.PodBuilder { return ct.Pod("default", "incoming").Pending() }

// newSnapshot builds a snapshot and fails the test on error.
func newSnapshot(t testing.TB, nodes []corev1.Node, pods []corev1.Pod, namespaces ...corev1.Namespace) *cluster.Snapshot {
	t.Helper()
	s, err := cluster.New(cluster.Objects{Nodes: nodes, Pods: pods, Namespaces: namespaces}, ct.Now)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// defaultEngine returns the engine of kube-scheduler's default profile.
func defaultEngine(t testing.TB) *Engine {
	t.Helper()
	e, err := New(profile.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// incoming returns the pod named "incoming" of the snapshot, the pod the
// tests schedule.
func incoming(t testing.TB, s *cluster.Snapshot) *cluster.Pod {
	t.Helper()
	p := s.Pod("default/incoming")
	if p == nil {
		t.Fatal("the snapshot has no pod default/incoming")
	}
	return p
}

// feasibleNodes returns the names of the nodes the engine finds feasible
// for the incoming pod.
func feasibleNodes(t testing.TB, e *Engine, s *cluster.Snapshot) []string {
	t.Helper()
	res := e.Schedule(s, incoming(t, s), Options{Explain: true})
	var names []string
	for _, n := range res.Nodes {
		if n.Feasible {
			names = append(names, n.Name)
		}
	}
	return names
}

// constraint is a topology spread constraint over the pods labelled
// foo=bar.
func constraint(key string, maxSkew int32, action corev1.UnsatisfiableConstraintAction) corev1.TopologySpreadConstraint {
	return corev1.TopologySpreadConstraint{MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: action, LabelSelector: ct.Selector("foo", "bar")}
}

// twoProfiles is the profile package's configuration with kube-scheduler's
// default profile and a bin-packing one.
var twoProfiles = func() string {
	data, err := os.ReadFile("../profile/testdata/two-profiles.yaml")
	if err != nil {
		panic(err)
	}
	return string(data)
}()

func setArgs(t *testing.T, p *profile.Profile, name string, args any) {
	t.Helper()
	if err := p.SetArgs(name, args); err != nil {
		t.Fatal(err)
	}
}
