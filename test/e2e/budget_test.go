package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// TestImplicitBudgetPacesATaintedDeployment: a Deployment of 4 replicas
// with no PodDisruptionBudget, all on a node that then gains a NoSchedule
// taint. Its own maxUnavailable (25% by default: 1 of 4) is its budget: the
// run moves one pod a step, waits until the replacement is Ready before the
// next, and never has more than one of the 4 down.
func TestImplicitBudgetPacesATaintedDeployment(t *testing.T) {
	cp := sharedControlPlane(t)
	ctx := t.Context()
	f := newFixture(t, cp, "implicit", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	tainted := f.nodes[0]

	// Not pile: its Deployments tolerate every pod down at once.
	web := harness.WorkloadSpec{Namespace: f.ns, Name: "web", Replicas: 4, CPU: "500m", SchedulerName: manualScheduler}
	if _, err := cp.CreateDeployment(ctx, web); err != nil {
		t.Fatal(err)
	}
	if _, err := cp.BindPendingPods(ctx, f.ns, web.Selector(), 4, []string{tainted}); err != nil {
		t.Fatal(err)
	}
	if _, err := cp.WaitForPodsRunning(ctx, f.ns, web.Selector(), 4); err != nil {
		t.Fatal(err)
	}
	taint := []byte(`{"spec":{"taints":[{"key":"rebalancer.dev/e2e-implicit","value":"drain","effect":"NoSchedule"}]}}`)
	if _, err := cp.Client.CoreV1().Nodes().Patch(ctx, tainted, types.StrategicMergePatchType, taint, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}

	bctx, stop := context.WithCancel(ctx)
	var (
		wg      sync.WaitGroup
		bindErr error
	)
	// Counts the Ready web pods at every change the API server reports.
	list, err := cp.Client.CoreV1().Pods(f.ns).List(ctx, metav1.ListOptions{LabelSelector: web.Selector()})
	if err != nil {
		t.Fatal(err)
	}
	w, err := cp.Client.CoreV1().Pods(f.ns).Watch(bctx, metav1.ListOptions{LabelSelector: web.Selector(), ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	ready := map[string]bool{}
	for _, p := range list.Items {
		ready[p.Name] = true
	}
	minReady := len(ready)
	wg.Go(func() {
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			if ev.Type == watch.Deleted || p.DeletionTimestamp != nil || p.Spec.NodeName == "" || !cluster.IsReady(p) {
				delete(ready, p.Name)
			} else {
				ready[p.Name] = true
			}
			minReady = min(minReady, len(ready))
		}
	})

	// Stands in for a scheduler: binds each replacement to an untainted
	// node.
	wg.Go(func() {
		for i := 0; bctx.Err() == nil; i++ {
			list, err := cp.Client.CoreV1().Pods(f.ns).List(bctx, metav1.ListOptions{LabelSelector: web.Selector(), FieldSelector: "spec.nodeName="})
			if err != nil {
				continue
			}
			for _, p := range list.Items {
				if p.DeletionTimestamp != nil {
					continue
				}
				if err := cp.BindPod(bctx, f.ns, p.Name, f.nodes[1+i%2]); err != nil && bctx.Err() == nil && bindErr == nil {
					bindErr = fmt.Errorf("binding %s: %w", p.Name, err)
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
	})

	pol := f.policy("strategies:\n  RemovePodsViolatingNodeTaints: {includedTaints: [rebalancer.dev/e2e-implicit]}\n")
	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", f.ns+"/rebalancer-state",
		"--step-timeout", "90s", "-o", "json")
	// The run does not wait after its last step: that replacement is
	// bound now.
	_, waitErr := cp.WaitForPodsRunning(ctx, f.ns, web.Selector(), 4)
	stop()
	w.Stop()
	wg.Wait()
	if r.code != 0 {
		t.Fatalf("run exited %d", r.code)
	}
	if bindErr != nil {
		t.Fatal(bindErr)
	}
	if waitErr != nil {
		t.Fatal(waitErr)
	}
	rep := decode(t, r)
	want := fmt.Sprintf("implicit budget: maxUnavailable 25%% of Deployment %s/web: 1 of 4 replicas a step", f.ns)
	if len(rep.Moves) != 4 || rep.Steps() != 4 {
		t.Errorf("%d moves in %d steps, want 4 in 4 (one pod of 4 at a time)", len(rep.Moves), rep.Steps())
	}
	for i, m := range rep.Moves {
		if m.Step != i+1 || m.From != tainted || m.Result != evictor.Evicted {
			t.Errorf("move %d: %s from %s in step %d: %s (%s); want step %d from %s, evicted", i+1, m.Pod, m.From, m.Step, m.Result, m.Message, i+1, tainted)
		}
		if m.Budget != want {
			t.Errorf("move of %s: budget %q, want %q", m.Pod, m.Budget, want)
		}
	}
	if rep.Stopped != "" {
		t.Errorf("the run stopped: %s", rep.Stopped)
	}
	// Each step waited for the replacement to be Ready: never two down.
	if minReady < 3 {
		t.Errorf("at one point %d of the 4 web pods were Ready; want at least 3 throughout", minReady)
	}

	running := 0
	for _, p := range pods(t, cp, f.ns, web.Selector()) {
		if p.DeletionTimestamp == nil && p.Spec.NodeName == tainted {
			t.Errorf("%s still on the tainted node %s", p.Name, tainted)
		}
		if p.DeletionTimestamp == nil && harness.PodRunning(&p) {
			running++
		}
	}
	if running != 4 {
		t.Errorf("%d web pods running after the run, want 4", running)
	}
}
