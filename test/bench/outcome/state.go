package main

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// workloadLabel names the workload a pod belongs to; every scenario's
// Deployments set it, so that a replacement is told from an old pod's
// workload without following owner references through ReplicaSets.
const workloadLabel = "app"

// state is what the API server holds at one moment: the scenario's pods,
// nodes and Deployments. Every figure is computed from two or more of them.
type state struct {
	pods  []pod
	nodes []corev1.Node
	// ready counts each workload's Ready pods, by namespace/app: from the
	// pods, which the Deployment's status follows only later.
	ready map[string]int32
	// replicas is each Deployment's spec.replicas, by namespace/name.
	replicas map[string]int32
}

// pod is the part of a pod the figures need.
type pod struct {
	uid      types.UID
	workload string // namespace/app
	node     string // "" while Pending
	// terminating pods are on their way out: an eviction under way.
	terminating bool
	obj         *corev1.Pod
}

// read lists the pods of the namespaces, every node and the namespaces'
// Deployments.
func read(ctx context.Context, c kubernetes.Interface, namespaces []string) (*state, error) {
	s := &state{ready: map[string]int32{}, replicas: map[string]int32{}}
	for _, ns := range namespaces {
		pods, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for i := range pods.Items {
			p := &pods.Items[i]
			app, ok := p.Labels[workloadLabel]
			if !ok || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
				continue
			}
			s.pods = append(s.pods, pod{uid: p.UID, workload: ns + "/" + app, node: p.Spec.NodeName,
				terminating: p.DeletionTimestamp != nil, obj: p})
			if p.DeletionTimestamp == nil && isReady(p) {
				s.ready[ns+"/"+app]++
			}
		}
		deps, err := c.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for _, d := range deps.Items {
			key := ns + "/" + d.Name
			s.replicas[key] = 1
			if d.Spec.Replicas != nil {
				s.replicas[key] = *d.Spec.Replicas
			}
		}
	}
	nodes, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	s.nodes = nodes.Items
	sort.Slice(s.pods, func(i, j int) bool { return s.pods[i].uid < s.pods[j].uid })
	sort.Slice(s.nodes, func(i, j int) bool { return s.nodes[i].Name < s.nodes[j].Name })
	return s, nil
}

// settled says whether every Deployment has all its pods again and each
// is Running and Ready or cannot be scheduled; when not, why, for the log.
func (s *state) settled() (bool, string) {
	have := map[string]int32{}
	for _, p := range s.pods {
		switch {
		case p.terminating:
			return false, fmt.Sprintf("%s is terminating", p.obj.Name)
		case p.node == "" && !unschedulable(p.obj):
			return false, fmt.Sprintf("%s waits for its scheduler", p.obj.Name)
		case p.node != "" && !isReady(p.obj):
			return false, fmt.Sprintf("%s is not Running and Ready yet", p.obj.Name)
		}
		have[p.workload]++
	}
	for w, want := range s.replicas {
		if have[w] != want {
			return false, fmt.Sprintf("%s has %d of %d pods", w, have[w], want)
		}
	}
	return true, ""
}

func isReady(p *corev1.Pod) bool {
	if p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// unschedulable says whether the scheduler tried the pod and found no node.
func unschedulable(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}

// placed counts the live pods of each workload on each node.
func (s *state) placed() map[placement]int {
	m := map[placement]int{}
	for _, p := range s.pods {
		if !p.terminating && p.node != "" {
			m[placement{p.workload, p.node}]++
		}
	}
	return m
}

type placement struct{ workload, node string }

// cycleDiff is what one cycle changed, from the states before and after it.
type cycleDiff struct {
	// evicted are the pods of before that after no longer has, by UID.
	evicted int
	// landedBack are replacements bound to a node that lost a pod of
	// their workload in the same cycle: per workload and node, the fewer
	// of the pods it lost and the new pods it gained.
	landedBack int
}

func diff(before, after *state) cycleDiff {
	still := map[types.UID]bool{}
	for _, p := range after.pods {
		still[p.uid] = true
	}
	old := map[types.UID]bool{}
	lost, gained := map[placement]int{}, map[placement]int{}
	var d cycleDiff
	for _, p := range before.pods {
		old[p.uid] = true
		if !still[p.uid] {
			d.evicted++
			if p.node != "" {
				lost[placement{p.workload, p.node}]++
			}
		}
	}
	for _, p := range after.pods {
		if !old[p.uid] && p.node != "" {
			gained[placement{p.workload, p.node}]++
		}
	}
	for k, n := range lost {
		d.landedBack += min(n, gained[k])
	}
	return d
}

// minimalMoves is the fewest evictions that turn first's placement into
// last's: per workload and node, the pods the node lost.
func minimalMoves(first, last *state) int {
	after := last.placed()
	n := 0
	for k, c := range first.placed() {
		n += max(0, c-after[k])
	}
	return n
}
