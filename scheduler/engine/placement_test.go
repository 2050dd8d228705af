package engine

import (
	"fmt"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// placeAll schedules the pending pods named in order, placing each where the
// engine says, as the planner does move by move; it returns the nodes chosen
// ("" for a pod that fits nowhere) and the last message.
func placeAll(t *testing.T, e *Engine, s *cluster.Snapshot, names []string) ([]string, string) {
	t.Helper()
	var chosen []string
	var msg string
	for _, name := range names {
		p := s.Pod("default/" + name)
		res := e.Schedule(s, p, Options{})
		chosen = append(chosen, res.Node)
		msg = res.Message
		if res.Node != "" {
			if err := e.Reserve(s, p, res.Node); err != nil {
				t.Fatal(err)
			}
		}
	}
	return chosen, msg
}

func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", prefix, i)
	}
	return out
}

func TestScheduleSeesEarlierPlacements(t *testing.T) {
	t.Run("capacity is taken move by move", func(t *testing.T) {
		var pods []corev1.Pod
		for _, n := range names("p", 9) {
			pods = append(pods, ct.Pod("default", n).Pending().Requests("1", "1Gi").Obj())
		}
		s := newSnapshot(t, []corev1.Node{ct.Node("a").Obj(), ct.Node("b").Obj()}, pods)
		chosen, msg := placeAll(t, defaultEngine(t), s, names("p", 9))
		perNode := map[string]int{}
		for _, n := range chosen[:8] {
			perNode[n]++
		}
		if perNode["a"] != 4 || perNode["b"] != 4 {
			t.Errorf("placed %v, want 4 pods on each 4-CPU node", chosen)
		}
		if chosen[8] != "" || msg != "0/2 nodes are available: 2 Insufficient cpu." {
			t.Errorf("the ninth pod went to %q with message %q, want nowhere with 2 Insufficient cpu", chosen[8], msg)
		}
		if got := s.Node("a").Requested.MilliCPU; got != 4000 {
			t.Errorf("node a has %dm requested, want 4000m", got)
		}
	})

	t.Run("spread counts include placed pods", func(t *testing.T) {
		nodes := []corev1.Node{ct.Node("a1").Zone("a").Obj(), ct.Node("a2").Zone("a").Obj(), ct.Node("b1").Zone("b").Obj(), ct.Node("c1").Zone("c").Obj()}
		var pods []corev1.Pod
		for _, n := range names("web", 6) {
			pods = append(pods, ct.Pod("default", n).Pending().
				Label("foo", "bar").
				SpreadConstraint(constraint(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule)).Obj())
		}
		s := newSnapshot(t, nodes, pods)
		chosen, _ := placeAll(t, defaultEngine(t), s, names("web", 6))
		perZone := map[string]int{}
		for _, n := range chosen {
			perZone[s.Node(n).Labels[corev1.LabelTopologyZone]]++
		}
		if perZone["a"] != 2 || perZone["b"] != 2 || perZone["c"] != 2 {
			t.Errorf("placed %v: %v per zone, want 2 in each", chosen, perZone)
		}
	})

	t.Run("anti-affinity sees placed replicas", func(t *testing.T) {
		var pods []corev1.Pod
		for _, n := range names("cache", 4) {
			pods = append(pods, ct.Pod("default", n).Pending().
				Label("app", "cache").
				AntiAffinityTerm(ct.AffinityTerm(corev1.LabelHostname, ct.Selector("app", "cache"))).Obj())
		}
		s := newSnapshot(t, []corev1.Node{ct.Node("a").Obj(), ct.Node("b").Obj(), ct.Node("c").Obj()}, pods)
		chosen, msg := placeAll(t, defaultEngine(t), s, names("cache", 4))
		if chosen[0] == chosen[1] || chosen[1] == chosen[2] || chosen[0] == chosen[2] || chosen[3] != "" {
			t.Errorf("placed %v, want three different nodes and no room for the fourth", chosen)
		}
		if want := "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules."; msg != want {
			t.Errorf("message %q, want %q", msg, want)
		}
	})

	t.Run("host ports are taken", func(t *testing.T) {
		pods := []corev1.Pod{ct.Pod("default", "p-0").Pending().HostPort(80, corev1.ProtocolTCP, "").Obj(), ct.Pod("default", "p-1").Pending().HostPort(80, corev1.ProtocolTCP, "").Obj()}
		s := newSnapshot(t, []corev1.Node{ct.Node("a").Obj(), ct.Node("b").Unschedulable().Obj()}, pods)
		chosen, msg := placeAll(t, defaultEngine(t), s, names("p", 2))
		want := "0/2 nodes are available: 1 node(s) didn't have free ports for the requested pod ports, 1 node(s) were unschedulable."
		if chosen[0] != "a" || chosen[1] != "" || msg != want {
			t.Errorf("placed %v with %q, want [a \"\"] with %q", chosen, msg, want)
		}
	})
}

func TestPlannerFlowOnForks(t *testing.T) {
	// The planner takes a pod off its node in a fork, asks where its
	// replacement goes (never the node it leaves), and places it there.
	nodes := []corev1.Node{ct.Node("a").Obj(), ct.Node("b").Obj(), ct.Node("c").Obj()}
	pods := []corev1.Pod{
		ct.Pod("default", "busy").On("a").Requests("3", "").Obj(),
		ct.Pod("default", "mover").On("a").
			Requests("1", "").
			Label("app", "solo").
			AntiAffinityTerm(ct.AffinityTerm(corev1.LabelHostname, ct.Selector("app", "solo"))).Obj(),
		ct.Pod("default", "solo-b").On("b").Label("app", "solo").Obj(),
	}
	base := newSnapshot(t, nodes, pods)
	e := defaultEngine(t)

	fork := base.Fork()
	mover := fork.Pod("default/mover")
	fork.Remove(mover)
	res := e.Schedule(fork, mover, Options{Exclude: []string{"a"}})
	if res.Node != "c" {
		t.Fatalf("the replacement went to %q (%s), want c: a is left and b runs another solo pod", res.Node, res.Message)
	}
	if err := e.Reserve(fork, mover, res.Node); err != nil {
		t.Fatal(err)
	}

	// In the fork, c now runs a solo pod; in the base snapshot it does not.
	probe := fork.Pod("default/busy")
	fork.Remove(probe)
	if ok, _ := e.Fits(fork, probe, fork.Node("c")); !ok {
		t.Errorf("busy does not fit on c in the fork")
	}
	other := base.Pod("default/solo-b")
	base2 := base.Fork()
	base2.Remove(other)
	if ok, why := e.Fits(base2, other, base2.Node("c")); !ok {
		t.Errorf("a solo pod does not fit on c in a fork of the base snapshot: %s", why)
	}
	fork.Remove(fork.Pod("default/solo-b"))
	if ok, _ := e.Fits(fork, fork.Pod("default/solo-b"), fork.Node("c")); ok {
		t.Errorf("a solo pod fits on c in the fork where the mover now runs")
	}
}

func TestScheduleIsDeterministic(t *testing.T) {
	nodes := []corev1.Node{}
	for i := range 12 {
		nodes = append(nodes, ct.Node(fmt.Sprintf("n%02d", i)).Zone(fmt.Sprintf("z%d", i%3)).Obj())
	}
	var pods []corev1.Pod
	for i := range 20 {
		pods = append(pods, ct.Pod("default", fmt.Sprintf("web-%d", i)).Pending().
			Requests("200m", "256Mi").
			OwnedBy("ReplicaSet", "web").
			Label("app", "web").
			PreferPodAntiAffinity(10, ct.AffinityTerm(corev1.LabelHostname, ct.Selector("app", "web"))).Obj())
	}
	run := func() []Result {
		s := newSnapshot(t, nodes, pods)
		e := defaultEngine(t)
		var out []Result
		for i := range 20 {
			p := s.Pod(fmt.Sprintf("default/web-%d", i))
			res := e.Schedule(s, p, Options{Explain: true})
			out = append(out, res)
			if res.Node != "" {
				if err := s.Place(p, res.Node); err != nil {
					t.Fatal(err)
				}
			}
		}
		return out
	}
	first, second := run(), run()
	if !reflect.DeepEqual(first, second) {
		t.Errorf("two runs on the same input differ")
	}
	// Ties go to the node that sorts first: the first replica lands on
	// n00, where every node is equal.
	if first[0].Node != "n00" {
		t.Errorf("the first replica went to %q, want n00 on a tie", first[0].Node)
	}
}
