// Package schedulertest holds what the plugins' tests share: they run the
// whole engine on a small snapshot, as kube-scheduler's own plugin tests
// run a framework, and read its message or its explanation.
package schedulertest

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// IncomingPod starts the pod the tests schedule: pending, in namespace
// "default", named "incoming" as Incoming expects.
func IncomingPod() *ct.PodBuilder { return ct.Pod("default", "incoming").Pending() }

// NewSnapshot builds a snapshot and fails the test on error.
func NewSnapshot(t testing.TB, nodes []corev1.Node, pods []corev1.Pod, namespaces ...corev1.Namespace) *cluster.Snapshot {
	t.Helper()
	s, err := cluster.New(cluster.Objects{Nodes: nodes, Pods: pods, Namespaces: namespaces}, ct.Now)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// DefaultEngine returns the engine of kube-scheduler's default profile.
func DefaultEngine(t testing.TB) *engine.Engine {
	t.Helper()
	return Engine(t, profile.DefaultProfile())
}

// Engine returns the engine of profile p, failing the test on error.
func Engine(t testing.TB, p profile.Profile) *engine.Engine {
	t.Helper()
	e, err := engine.New(p)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Incoming returns the pod named "incoming" of the snapshot, the pod the
// tests schedule.
func Incoming(t testing.TB, s *cluster.Snapshot) *cluster.Pod {
	t.Helper()
	p := s.Pod("default/incoming")
	if p == nil {
		t.Fatal("the snapshot has no pod default/incoming")
	}
	return p
}

// FeasibleNodes returns the names of the nodes the engine finds feasible
// for the incoming pod.
func FeasibleNodes(t testing.TB, e *engine.Engine, s *cluster.Snapshot) []string {
	t.Helper()
	res := e.Schedule(s, Incoming(t, s), engine.Options{Explain: true})
	var names []string
	for _, n := range res.Nodes {
		if n.Feasible {
			names = append(names, n.Name)
		}
	}
	return names
}

// ScoresOf returns each node's score from one plugin, in node order.
func ScoresOf(t testing.TB, e *engine.Engine, nodes []corev1.Node, pods []corev1.Pod, plugin string) []int64 {
	t.Helper()
	s := NewSnapshot(t, nodes, pods)
	res := e.Schedule(s, Incoming(t, s), engine.Options{Explain: true})
	var out []int64
	for _, n := range res.Nodes {
		out = append(out, n.Scores[plugin])
	}
	return out
}

// SetArgs sets plugin name's arguments in p, failing the test on error.
func SetArgs(t testing.TB, p *profile.Profile, name string, args any) {
	t.Helper()
	if err := p.SetArgs(name, args); err != nil {
		t.Fatal(err)
	}
}
