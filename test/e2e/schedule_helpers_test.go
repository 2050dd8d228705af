package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// startScheduler runs `rebalancer schedule` serving schedulerName (one of
// the test's own: tests run side by side on the shared control plane) and
// waits until it has started.
func startScheduler(t *testing.T, kubeconfig, schedulerName string, args ...string) *daemon {
	t.Helper()
	sched := startRebalancer(t, append([]string{"schedule", "--kubeconfig", kubeconfig, "--scheduler-name", schedulerName}, args...)...)
	err := harness.WaitFor(t.Context(), time.Minute, "the scheduler to start", func(context.Context) (bool, error) {
		if err := sched.exited(); err != nil {
			return false, err
		}
		return strings.Contains(sched.stderr.String(), `"Scheduler started"`), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sched
}

// priorityClass creates a PriorityClass for the test, deleted after it.
func priorityClass(t *testing.T, cp *harness.ControlPlane, name string, value int32, policy corev1.PreemptionPolicy) string {
	t.Helper()
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value, PreemptionPolicy: &policy}
	if _, err := cp.Client.SchedulingV1().PriorityClasses().Create(t.Context(), pc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cp.Client.SchedulingV1().PriorityClasses().Delete(context.WithoutCancel(t.Context()), name, metav1.DeleteOptions{})
	})
	return name
}

// schedPod creates a bare pod of the fixture for schedulerName: it asks for
// cpu and may run only on the fixture's nodes.
func (f *fixture) schedPod(name, schedulerName, cpu, priorityClass string) *corev1.Pod {
	f.t.Helper()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns, Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{
			SchedulerName:     schedulerName,
			PriorityClassName: priorityClass,
			NodeSelector:      map[string]string{harness.NodeSetLabel: f.ns},
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)},
			}}},
		},
	}
	created, err := f.cp.Client.CoreV1().Pods(f.ns).Create(f.t.Context(), p, metav1.CreateOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return created
}

// waitForPod waits until the pod meets cond and returns it as last read.
func waitForPod(t *testing.T, cp *harness.ControlPlane, ns, name string, timeout time.Duration, what string, cond func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	var last *corev1.Pod
	err := harness.WaitFor(t.Context(), timeout, name+" "+what, func(ctx context.Context) (bool, error) {
		p, err := cp.Client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		last = p
		return cond(p), nil
	})
	if err != nil {
		if last != nil {
			t.Fatalf("%v (last: node %q, nominated %q, conditions %v)", err, last.Spec.NodeName, last.Status.NominatedNodeName, last.Status.Conditions)
		}
		t.Fatal(err)
	}
	return last
}

// unschedulableMessage returns the message of the pod's PodScheduled=False
// condition, or "".
func unschedulableMessage(p *corev1.Pod) string {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return c.Message
		}
	}
	return ""
}
