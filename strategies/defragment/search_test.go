package defragment

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// anyPod is a Mover that lets the strategy evict every pod.
type anyPod struct{}

func (anyPod) Evictable(string, *cluster.Pod) string              { return "" }
func (anyPod) Move(string, framework.Candidate) framework.Outcome { return framework.Outcome{} }
func (anyPod) Skip(string, *cluster.Pod, framework.Outcome)       {}
func (anyPod) Exhausted() bool                                    { return false }

// randomCluster makes 3 to 8 nodes and 20 to 40 pods, packed first-fit in a
// random order, and a pending pod larger than any node's free room.
func randomCluster(t *testing.T, seed uint64) (*cluster.Snapshot, *cluster.Pod) {
	r := rand.New(rand.NewPCG(seed, 7))
	nodes := 3 + r.IntN(6)
	cpu := make([]int64, nodes)
	free := make([]int64, nodes)
	objs := []any{ct.DeploymentReplicaSet("shop", "web")}
	for i := range nodes {
		cpu[i] = int64(3+r.IntN(4)) * 1000
		free[i] = cpu[i]
		objs = append(objs, ct.Node(fmt.Sprintf("n%d", i)).CPU(fmt.Sprintf("%dm", cpu[i])).Obj())
	}
	sizes := []int64{250, 250, 500, 500, 750, 1000, 1500}
	for j := range 20 + r.IntN(21) {
		size := sizes[r.IntN(len(sizes))]
		start := r.IntN(nodes)
		for k := range nodes {
			n := (start + k) % nodes
			if free[n] >= size {
				free[n] -= size
				objs = append(objs, ct.Pod("shop", fmt.Sprintf("web-%02d", j)).On(fmt.Sprintf("n%d", n)).
					Requests(fmt.Sprintf("%dm", size), "").Priority(int32(r.IntN(3))).Deployment("web"))
				break
			}
		}
	}
	most := slices.Max(free)
	ask := most + 250 + int64(r.IntN(4))*250
	objs = append(objs, ct.Pod("shop", "big-0").Requests(fmt.Sprintf("%dm", ask), "").Deployment("big").Unschedulable())
	snap := ct.Snapshot(t, objs...)
	return snap, snap.Pod("shop/big-0")
}

// exhaustive tries every set of at most maxMoves movable pods of every host
// and returns the best by the search's order: fewest moves, then key, then
// node name.
func exhaustive(s *search, nodes []*cluster.Node) (best *found) {
	s.prepare(nodes)
	nr := len(s.res)
	for h := range s.hosts {
		hs := &s.hosts[h]
		n := hs.hi - hs.lo
		for mask := 1; mask < 1<<n; mask++ {
			k := popcount(mask)
			if k > s.maxMoves {
				continue
			}
			var chosen []int
			for i := n - 1; i >= 0; i-- {
				if mask&(1<<i) != 0 {
					chosen = append(chosen, i)
				}
			}
			covers := true
			for r := range nr {
				var sum int64
				for _, i := range chosen {
					sum += s.vals[(hs.lo+i)*nr+r]
				}
				covers = covers && sum >= s.needs[h*nr+r]
			}
			if !covers || !s.feasible(hs, chosen) {
				continue
			}
			key := make([]int32, k)
			for d, i := range chosen {
				key[d] = s.cands[hs.lo+i].rank
			}
			if best == nil || k < len(best.key) || k == len(best.key) && (slices.Compare(key, best.key) < 0 ||
				slices.Equal(key, best.key) && hs.node.Name < best.node.Name) {
				best = &found{node: hs.node, key: key, pods: slices.Clone(s.moving)}
			}
		}
	}
	return best
}

func popcount(m int) int {
	n := 0
	for ; m > 0; m &= m - 1 {
		n++
	}
	return n
}

// TestSearchIsExact checks the search against every set of moves on
// small random clusters: the same number of moves, the same pods, the same
// node.
func TestSearchIsExact(t *testing.T) {
	pol, err := policy.Load([]byte("apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\n"), "policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(profile.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	found, several, none := 0, 0, 0
	for seed := range uint64(60) {
		for _, maxMoves := range []int{1, 3, 5} {
			snap, p := randomCluster(t, seed)
			in := &framework.Cycle{Snapshot: snap, Policy: pol, Placer: eng, Mover: anyPod{}}
			res := eng.Schedule(snap, p, engine.Options{Explain: true})
			if res.Node != "" {
				continue
			}
			hosts := hostsOf(in, res)
			got := newSearch(in, newMovers(in), p, maxMoves).find(hosts)
			want := exhaustive(newSearch(in, newMovers(in), p, maxMoves), hosts) // a search of its own: got keeps its buffers
			if describe(got) != describe(want) {
				t.Errorf("seed %d, maxMovesPerPod %d: search found %s, every set tried finds %s", seed, maxMoves, describe(got), describe(want))
			}
			switch {
			case got == nil:
				none++
			case len(got.pods) > 1:
				several++
				found++
			default:
				found++
			}
		}
	}
	t.Logf("%d cases with moves (%d with several), %d without", found, several, none)
	// The cases must exercise both outcomes.
	if found < 20 || several < 10 || none < 5 {
		t.Errorf("%d cases with moves (%d with several), %d without: the random clusters do not test the search", found, several, none)
	}
}

func describe(f *found) string {
	if f == nil {
		return "nothing"
	}
	var pods []string
	for _, p := range f.pods {
		pods = append(pods, p.Key)
	}
	return fmt.Sprintf("%d moves on %s (%s)", len(f.pods), f.node.Name, strings.Join(pods, ", "))
}
