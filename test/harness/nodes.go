package harness

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Labels every harness node carries.
const (
	// NodeTypeLabel=NodeTypeKwok marks nodes made by CreateNodes.
	NodeTypeLabel = "type"
	NodeTypeKwok  = "kwok"
	// NodeSetLabel holds the NamePrefix of the CreateNodes call, to select
	// one batch of nodes.
	NodeSetLabel = "rebalancer.test/node-set"
)

// NodeSpec describes a batch of kwok nodes for CreateNodes.
type NodeSpec struct {
	// NamePrefix names nodes NamePrefix-0, NamePrefix-1, ...; default "node".
	NamePrefix string
	// StartIndex is the number of the first node, so that a second batch
	// with the same prefix does not collide with the first.
	StartIndex int
	// CPU, Memory and Pods are the capacity, and the allocatable, of each
	// node. Defaults: "4", "16Gi", "110".
	CPU    string
	Memory string
	Pods   string
	// Labels are added to the harness's own (type=kwok, hostname, node set,
	// zone).
	Labels map[string]string
	// Zones, if set, are assigned round-robin as topology.kubernetes.io/zone.
	Zones []string
	// Taints are set at creation. Pods then need matching tolerations.
	Taints []corev1.Taint
	// Unschedulable cordons the nodes.
	Unschedulable bool
}

// notReadyTaint is added by the TaintNodesByCondition admission plugin to
// every new node. The node lifecycle controller derives NoSchedule taints
// from node conditions, so it lifts this one once kwok reports Ready; without
// kube-controller-manager it would stay and nothing could be scheduled.
const notReadyTaint = "node.kubernetes.io/not-ready"

// CreateNodes creates n kwok-managed nodes, concurrently, and waits until all
// are Ready and free of the not-ready taint. It returns them in name order.
func (cp *ControlPlane) CreateNodes(ctx context.Context, n int, spec NodeSpec) ([]*corev1.Node, error) {
	if spec.NamePrefix == "" {
		spec.NamePrefix = "node"
	}
	capacity := corev1.ResourceList{}
	for name, v := range map[corev1.ResourceName][2]string{
		corev1.ResourceCPU:    {spec.CPU, "4"},
		corev1.ResourceMemory: {spec.Memory, "16Gi"},
		corev1.ResourcePods:   {spec.Pods, "110"},
	} {
		s := v[0]
		if s == "" {
			s = v[1]
		}
		q, err := resource.ParseQuantity(s)
		if err != nil {
			return nil, fmt.Errorf("node %s %q: %w", name, s, err)
		}
		capacity[name] = q
	}

	nodes := make([]*corev1.Node, n)
	for i := range n {
		name := fmt.Sprintf("%s-%d", spec.NamePrefix, spec.StartIndex+i)
		lbls := map[string]string{
			NodeTypeLabel:          NodeTypeKwok,
			NodeSetLabel:           spec.NamePrefix,
			corev1.LabelHostname:   name,
			corev1.LabelOSStable:   "linux",
			corev1.LabelArchStable: "amd64",
		}
		if len(spec.Zones) > 0 {
			lbls[corev1.LabelTopologyZone] = spec.Zones[(spec.StartIndex+i)%len(spec.Zones)]
		}
		maps.Copy(lbls, spec.Labels)
		annotations := map[string]string{KwokNodeAnnotation: "fake"}
		if cp.opts.ResourceMetrics {
			annotations[resourceMetricsPathAnnotation] = resourceMetricsPath(name)
		}
		nodes[i] = &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name:        name,
				Labels:      lbls,
				Annotations: annotations,
			},
			Spec: corev1.NodeSpec{
				Taints:        spec.Taints,
				Unschedulable: spec.Unschedulable,
			},
			// A kubelet registers its node with capacity; kwok keeps the
			// capacity a node was created with (it fills in 1k CPUs and
			// 1Ti otherwise) and adds conditions, addresses and heartbeats.
			Status: corev1.NodeStatus{
				Capacity:    capacity,
				Allocatable: capacity,
			},
		}
	}

	created := make([]*corev1.Node, n)
	err := parallel(ctx, n, 16, func(ctx context.Context, i int) error {
		node, err := cp.Client.CoreV1().Nodes().Create(ctx, nodes[i], metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("create node %s: %w", nodes[i].Name, err)
		}
		created[i] = node
		return nil
	})
	if err != nil {
		return nil, err
	}

	names := make(map[string]bool, n)
	for _, node := range nodes {
		names[node.Name] = true
	}
	return created, cp.waitNodesReady(ctx, names, spec.NamePrefix)
}

// waitNodesReady waits until every named node is Ready without the not-ready
// taint. One List per poll keeps this cheap for hundreds of nodes.
func (cp *ControlPlane) waitNodesReady(ctx context.Context, names map[string]bool, set string) error {
	var state waitState
	// Each node needs kwok to post Ready and then a node-monitor period of
	// the lifecycle controller; allow for a loaded machine.
	timeout := 2*time.Minute + time.Duration(len(names))*200*time.Millisecond
	selector := labels.SelectorFromSet(labels.Set{NodeSetLabel: set}).String()
	err := waitFor(ctx, timeout, pollIntervalFor(len(names)), fmt.Sprintf("%d nodes %q Ready without the %s taint", len(names), set, notReadyTaint), func(ctx context.Context) (bool, error) {
		if err := cp.checkProcesses(); err != nil {
			return false, err
		}
		list, err := cp.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			state.last = err.Error()
			return false, nil
		}
		ready, tainted := 0, 0
		for i := range list.Items {
			node := &list.Items[i]
			if !names[node.Name] {
				continue
			}
			if NodeReady(node) {
				ready++
			}
			if hasTaint(node, notReadyTaint) {
				tainted++
			}
		}
		state.last = fmt.Sprintf("%d Ready, %d still tainted %s", ready, tainted, notReadyTaint)
		return ready == len(names) && tainted == 0, nil
	})
	return state.wrap(err)
}

// NodeReady reports whether the node's Ready condition is True.
func NodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func hasTaint(node *corev1.Node, key string) bool {
	for _, t := range node.Spec.Taints {
		if t.Key == key {
			return true
		}
	}
	return false
}

// parallel runs fn for 0..n-1 on up to workers goroutines and returns the
// first error; after an error no new calls start.
func parallel(ctx context.Context, n, workers int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
		next     = make(chan int)
	)
	for range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				if err := fn(ctx, i); err != nil {
					once.Do(func() { firstErr = err; cancel() })
				}
			}
		})
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		// The caller's context ended before every item was handed out.
		return ctx.Err()
	}
	return firstErr
}
