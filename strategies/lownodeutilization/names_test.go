package lownodeutilization_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

// mixedCluster is a table of six hot nodes and ten idle ones, all of 8 cpu,
// and Deployments of five sizes whose replicas fill each hot node to
// 60-95%, drawn from seed. names[k] names the Deployment of size k: the
// same cluster under other names.
type mixedCluster struct {
	sizes []int64 // millicores, by Deployment
	// replicas[node][k] is how many pods of Deployment k run on hot node.
	replicas [][]int
}

const mixedTarget = 50 // percent of cpu

func newMixedCluster(seed uint64) mixedCluster {
	r := rand.New(rand.NewPCG(seed, 35))
	c := mixedCluster{sizes: []int64{100, 250, 500, 1000, 1500}}
	for range 6 {
		counts := make([]int, len(c.sizes))
		want := int64(4800 + r.IntN(2800))
		for used := int64(0); ; {
			k := r.IntN(len(c.sizes))
			if used+c.sizes[k] > want {
				break
			}
			counts[k]++
			used += c.sizes[k]
		}
		c.replicas = append(c.replicas, counts)
	}
	return c
}

func (c mixedCluster) objects(names []string) cluster.Objects {
	var objs []any
	for i := range 10 {
		objs = append(objs, ct.Node(fmt.Sprintf("idle-%d", i)).CPU("8"))
	}
	for k := range c.sizes {
		objs = append(objs, ct.DeploymentReplicaSet("shop", names[k]))
	}
	for h, counts := range c.replicas {
		node := fmt.Sprintf("hot-%d", h)
		objs = append(objs, ct.Node(node).CPU("8"))
		for k, n := range counts {
			for i := range n {
				objs = append(objs, ct.Pod("shop", fmt.Sprintf("%s-%s-%d", names[k], node, i)).On(node).
					Requests(fmt.Sprintf("%dm", c.sizes[k]), "").Deployment(names[k]))
			}
		}
	}
	return ct.Objects(objs...)
}

// byName counts the moves of the order LowNodeUtilization had before it
// weighed what a pod relieves: pods of equal priority and QoS leave by
// name until the node is within target. Every idle node has room here, so
// that no pod is refused a target.
func (c mixedCluster) byName(names []string) int {
	moves := 0
	for h, counts := range c.replicas {
		node := fmt.Sprintf("hot-%d", h)
		type pod struct {
			key string
			cpu int64
		}
		var pods []pod
		var used int64
		for k, n := range counts {
			for i := range n {
				pods = append(pods, pod{fmt.Sprintf("shop/%s-%s-%d", names[k], node, i), c.sizes[k]})
				used += c.sizes[k]
			}
		}
		slices.SortFunc(pods, func(a, b pod) int { return strings.Compare(a.key, b.key) })
		for _, p := range pods {
			if used*100 <= mixedTarget*8000 {
				break
			}
			used -= p.cpu
			moves++
		}
	}
	return moves
}

// cpuAfter lists each node's cpu utilization once the plan is done.
func cpuAfter(s *cluster.Snapshot) []string {
	var out []string
	for _, n := range s.Nodes() {
		out = append(out, fmt.Sprintf("%s %.2f%%", n.Name, n.Utilization(corev1.ResourceCPU)))
	}
	return out
}

// On a live cluster whose Deployment names happened to sort by size,
// LowNodeUtilization evicted the smallest pods first and needed more
// evictions than the same cluster under other names. The pods that relieve
// the node most now go first: the number of moves, and where the nodes end,
// do not depend on the names, and are never more than by name.
func TestLowNodeUtilizationMovesDoNotDependOnNames(t *testing.T) {
	policy := fmt.Sprintf("strategies:\n  LowNodeUtilization:\n    thresholds: {cpu: 20}\n    targetThresholds: {cpu: %d}\n", mixedTarget)
	// a, b, c, d, e name the sizes smallest first: by name, the smallest
	// pods left first.
	sorted := []string{"a", "b", "c", "d", "e"}
	for _, seed := range []uint64{1, 2, 3, 4, 5} {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			c := newMixedCluster(seed)
			objs := c.objects(sorted)
			plan := strategytest.Plan(t, strategytest.Build(t, objs), policy)
			moves, after := len(plan.Moves), cpuAfter(strategytest.AfterPlan(t, objs, plan))
			if old := c.byName(sorted); moves > old {
				t.Errorf("names sorted by size: %d moves, more than the %d of leaving by name", moves, old)
			}
			r := rand.New(rand.NewPCG(seed, 7))
			for range 4 {
				names := slices.Clone(sorted)
				r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
				objs := c.objects(names)
				p := strategytest.Plan(t, strategytest.Build(t, objs), policy)
				if len(p.Moves) != moves {
					t.Errorf("names %v: %d moves, %d under names sorted by size", names, len(p.Moves), moves)
				}
				strategytest.Equal(t, fmt.Sprintf("names %v: cpu after the plan", names), cpuAfter(strategytest.AfterPlan(t, objs, p)), after)
				if old := c.byName(names); len(p.Moves) > old {
					t.Errorf("names %v: %d moves, more than the %d of leaving by name", names, len(p.Moves), old)
				}
			}
		})
	}
}
