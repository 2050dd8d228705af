package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// TestStaticIndexChangesNoDecision searches, with and without the index of
// the static checks, for a home for every pod of generated clusters large
// enough that the search stops early (percentageOfNodesToScore): pools
// told apart by labels, taints and cordons, pods with node selectors and
// tolerations, some with nowhere to go. Each search leaves the pod's own
// node out, as the planner does, and half of them are limited to
// candidates. Every result must be the same: the node, the scores, how many
// nodes were evaluated and found feasible, and the no-fit message with its
// counts, the pod's own node among them when the checks turn it down too.
func TestStaticIndexChangesNoDecision(t *testing.T) {
	searched, noFit, excludedAndRejected := 0, 0, 0
	for seed := uint64(1); seed <= 12; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		s := poolsCluster(t, r)
		p := profile.DefaultProfile()
		p.PercentageOfNodesToScore = ptr.To(int32(10 + r.IntN(30)))
		e, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, pod := range s.Pods() {
			from := s.NodeOf(pod)
			opts := Options{}
			var cands []int32
			if r.IntN(2) == 0 {
				for i := range s.Nodes() {
					if r.IntN(3) > 0 {
						cands = append(cands, int32(i))
					}
				}
			}
			work := s.Fork()
			if from != nil {
				work.Remove(pod)
				opts.Exclude = []string{from.Name}
			}
			opts.AcceptOnly = cands
			with := e.Schedule(work, pod, opts)
			indexStaticChecks = false
			without := e.Schedule(work, pod, opts)
			indexStaticChecks = true
			if with.Node != without.Node || with.Score != without.Score || with.RunnerUp != without.RunnerUp ||
				with.RunnerUpScore != without.RunnerUpScore || with.Evaluated != without.Evaluated ||
				with.Feasible != without.Feasible || with.Message != without.Message {
				t.Fatalf("seed %d, pod %s:\nwith the index    %+v\nwithout the index %+v", seed, pod.Key, with, without)
			}
			searched++
			if with.Node == "" {
				noFit++
				if from != nil && !selects(pod, from) {
					excludedAndRejected++
				}
			}
		}
	}
	t.Logf("%d searches, %d without a node, %d of those on a node the pod's selector leaves out", searched, noFit, excludedAndRejected)
	if noFit < searched/20 || noFit > searched/2 || excludedAndRejected == 0 {
		t.Errorf("%d searches, %d without a node, %d on a node left out: the generated cases miss an outcome", searched, noFit, excludedAndRejected)
	}
}

// poolsCluster is 150 to 250 nodes in pools, some tainted, a few cordoned,
// with pods on them that select a pool, some from a pool they no longer
// fit (relabelled), some asking for more than any node has.
func poolsCluster(t *testing.T, r *rand.Rand) *cluster.Snapshot {
	pools := []string{"general", "compute", "gpu", "infra"}
	var nodes []corev1.Node
	for i := range 150 + r.IntN(100) {
		pool := pools[r.IntN(len(pools))]
		b := ct.Node(fmt.Sprintf("n%03d", i)).CPU("8").Memory("32Gi").Pods(20).Label("pool", pool)
		switch pool {
		case "gpu":
			b.Taint("nvidia.com/gpu", "present", corev1.TaintEffectNoSchedule)
		case "infra":
			b.Taint("dedicated", "infra", []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute}[r.IntN(2)])
		}
		if r.IntN(15) == 0 {
			b.Unschedulable()
		}
		nodes = append(nodes, b.Obj())
	}
	var pods []corev1.Pod
	for i := range 2 * len(nodes) {
		b := ct.Pod("default", fmt.Sprintf("p%04d", i)).OwnedBy("ReplicaSet", fmt.Sprintf("rs-%d", i%17)).
			Requests(fmt.Sprintf("%dm", 500*(1+r.IntN(8))), "1Gi").
			On(nodes[r.IntN(len(nodes))].Name)
		if r.IntN(3) > 0 {
			b.NodeSelector("pool", pools[r.IntN(len(pools))])
		}
		switch r.IntN(6) {
		case 0:
			b.Toleration(corev1.Toleration{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists})
		case 1:
			b.Toleration(corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "infra", Effect: corev1.TaintEffectNoSchedule})
		}
		if r.IntN(12) == 0 {
			b.Requests("16", "1Gi")
		}
		pods = append(pods, b.Obj())
	}
	return newSnapshot(t, nodes, pods)
}

// selects reports whether the pod's node selector selects the node.
func selects(p *cluster.Pod, n *cluster.Node) bool {
	for k, v := range p.Spec.NodeSelector {
		if n.Labels[k] != v {
			return false
		}
	}
	return true
}

// A search for a pod that fits nowhere reads every node's static verdict,
// with the index, from the same table: two pods of one spec share it.
func TestPodsOfOneSpecShareTheStaticIndex(t *testing.T) {
	var nodes []corev1.Node
	for i := range 40 {
		nodes = append(nodes, ct.Node(fmt.Sprintf("n%02d", i)).CPU("1").Label("pool", []string{"a", "b"}[i%2]).Obj())
	}
	pods := []corev1.Pod{
		ct.Pod("default", "one").NodeSelector("pool", "a").Requests("2", "1Gi").Pending().Obj(),
		ct.Pod("default", "two").NodeSelector("pool", "a").Requests("2", "1Gi").Pending().Obj(),
	}
	s := newSnapshot(t, nodes, pods)
	e := defaultEngine(t)
	for _, name := range []string{"default/one", "default/two"} {
		res := e.Schedule(s, s.Pod(name), Options{})
		if want := "0/40 nodes are available: 20 Insufficient cpu, 20 node(s) didn't match Pod's node affinity/selector."; res.Message != want {
			t.Errorf("%s: message %q, want %q", name, res.Message, want)
		}
	}
	fam := e.familyOf(s)
	if n := fam.staticIndexes.Len(); n != 1 {
		t.Fatalf("%d static indexes, want the one both pods share", n)
	}
	for _, idx := range fam.staticIndexes.All() {
		var rejected []int
		for i, v := range idx.verdict {
			if v == verdictStatic {
				rejected = append(rejected, i)
			}
		}
		if len(rejected) != 20 || slices.ContainsFunc(rejected, func(i int) bool { return i%2 == 0 }) {
			t.Errorf("the index turns down nodes %v, want the 20 of pool b", rejected)
		}
	}
}
