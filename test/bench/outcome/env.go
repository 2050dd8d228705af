package main

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// namespace creates a namespace whose pods the figures count.
func (e *env) namespace(ctx context.Context, name string) error {
	if _, err := e.cp.CreateNamespace(ctx, name); err != nil {
		return err
	}
	e.namespaces = append(e.namespaces, name)
	return nil
}

// nodes creates n kwok nodes of 4 CPUs and 16Gi and returns their names.
func (e *env) nodes(ctx context.Context, n int, spec harness.NodeSpec) ([]string, error) {
	spec.CPU, spec.Memory = "4", "16Gi"
	created, err := e.cp.CreateNodes(ctx, n, spec)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(created))
	for i, node := range created {
		names[i] = node.Name
	}
	return names, nil
}

// deploy creates a Deployment of the arm's scheduler and waits until its
// pods run.
func (e *env) deploy(ctx context.Context, spec harness.WorkloadSpec) error {
	spec.SchedulerName = e.schedulerName
	spec.Labels = map[string]string{workloadLabel: spec.Name}
	if _, err := e.cp.CreateDeployment(ctx, spec); err != nil {
		return fmt.Errorf("create Deployment %s/%s: %w", spec.Namespace, spec.Name, err)
	}
	_, err := e.cp.WaitForPodsRunning(ctx, spec.Namespace, spec.Selector(), int(spec.Replicas))
	return err
}

// patchNodes sends the same strategic merge patch to each node, as kubectl
// cordon, label and taint do.
func (e *env) patchNodes(ctx context.Context, names []string, patch string) error {
	for _, n := range names {
		if _, err := e.cp.Client.CoreV1().Nodes().Patch(ctx, n, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("patch node %s: %w", n, err)
		}
	}
	return nil
}

func (e *env) cordon(ctx context.Context, names []string, on bool) error {
	return e.patchNodes(ctx, names, fmt.Sprintf(`{"spec":{"unschedulable":%v}}`, on))
}

// taint adds a taint to the nodes; a patch of spec.taints replaces the
// list, which kwok's nodes have empty.
func (e *env) taint(ctx context.Context, names []string, t corev1.Taint) error {
	return e.patchNodes(ctx, names, fmt.Sprintf(`{"spec":{"taints":[{"key":%q,"value":%q,"effect":%q}]}}`, t.Key, t.Value, t.Effect))
}
