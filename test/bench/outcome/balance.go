package main

import (
	"math"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// balance is how the cluster stands at one moment, as a scenario judges it.
type balance struct {
	// cpuMax, cpuMin and cpuStdDev are over the nodes: the CPU the pods
	// bound to a node request, in percent of its allocatable.
	cpuMax, cpuMin, cpuStdDev float64
	// empty nodes hold none of the scenario's pods.
	empty int
	// skew is the largest skew of a topology spread constraint: for a
	// constraint of a workload, the most minus the fewest of its pods in
	// a domain of the constraint's key.
	skew int
	// violations are pods bound to a node that their required node
	// affinity or node selector does not match, or whose NoSchedule or
	// NoExecute taint they do not tolerate.
	violations int
	// pending pods are bound to no node.
	pending int
}

func measureBalance(s *state) balance {
	var b balance
	requested := map[string]int64{}
	for _, p := range s.pods {
		if p.terminating {
			continue
		}
		if p.node == "" {
			b.pending++
			continue
		}
		for _, c := range p.obj.Spec.Containers {
			requested[p.node] += c.Resources.Requests.Cpu().MilliValue()
		}
	}
	nodes := map[string]*corev1.Node{}
	var pct []float64
	for i := range s.nodes {
		n := &s.nodes[i]
		nodes[n.Name] = n
		alloc := n.Status.Allocatable.Cpu().MilliValue()
		if alloc == 0 {
			continue
		}
		pct = append(pct, 100*float64(requested[n.Name])/float64(alloc))
		if requested[n.Name] == 0 {
			b.empty++
		}
	}
	b.cpuMax, b.cpuMin, b.cpuStdDev = spread(pct)

	for _, p := range s.pods {
		if p.terminating || p.node == "" {
			continue
		}
		if n := nodes[p.node]; n != nil && violates(p.obj, n) {
			b.violations++
		}
	}
	b.skew = maxSkew(s)
	return b
}

// spread returns the largest, the smallest and the population standard
// deviation of xs.
func spread(xs []float64) (hi, lo, sd float64) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	hi, lo = xs[0], xs[0]
	var sum float64
	for _, x := range xs {
		hi, lo, sum = math.Max(hi, x), math.Min(lo, x), sum+x
	}
	mean := sum / float64(len(xs))
	var sq float64
	for _, x := range xs {
		sq += (x - mean) * (x - mean)
	}
	return hi, lo, math.Sqrt(sq / float64(len(xs)))
}

// violates says whether the pod may not stay on the node by its required
// node affinity, its node selector or the node's taints.
func violates(p *corev1.Pod, n *corev1.Node) bool {
	if ok, err := nodeaffinity.GetRequiredNodeAffinity(p).Match(n); err != nil || !ok {
		return true
	}
	_, untolerated := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), n.Spec.Taints, p.Spec.Tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}, false)
	return untolerated
}

// maxSkew is the largest skew of any workload's topology spread
// constraint, over the domains of the nodes that have the constraint's key;
// 0 without constraints.
func maxSkew(s *state) int {
	var worst int
	seen := map[string]bool{}
	node := map[string]*corev1.Node{}
	for i := range s.nodes {
		node[s.nodes[i].Name] = &s.nodes[i]
	}
	for _, p := range s.pods {
		if seen[p.workload] {
			continue
		}
		seen[p.workload] = true
		for _, c := range p.obj.Spec.TopologySpreadConstraints {
			sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
			if err != nil {
				continue
			}
			count := map[string]int{}
			for i := range s.nodes {
				if v, ok := s.nodes[i].Labels[c.TopologyKey]; ok {
					count[v] += 0
				}
			}
			for _, q := range s.pods {
				if q.terminating || q.node == "" || q.obj.Namespace != p.obj.Namespace || !sel.Matches(labels.Set(q.obj.Labels)) {
					continue
				}
				if n := node[q.node]; n != nil {
					if v, ok := n.Labels[c.TopologyKey]; ok {
						count[v]++
					}
				}
			}
			first, hi, lo := true, 0, 0
			for _, n := range count {
				if first {
					hi, lo, first = n, n, false
				}
				hi, lo = max(hi, n), min(lo, n)
			}
			worst = max(worst, hi-lo)
		}
	}
	return worst
}
