package harness_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// TestScale200Nodes6000Pods proves the size of cluster rebalancer's scale
// tests need is reachable in a couple of minutes, half placed by
// kube-scheduler and half bound by the test. It runs on a control plane of
// its own, which also proves that two control planes run side by side and
// that Start with a testing.TB cleans up after itself.
func TestScale200Nodes6000Pods(t *testing.T) {
	const (
		nodes          = 200
		deployments    = 40
		replicas       = 150
		manualBindings = deployments / 2
	)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()

	// Registered before Start, so it runs after Start's own cleanup.
	var scp *harness.ControlPlane
	t.Cleanup(func() {
		if scp == nil || t.Failed() {
			return
		}
		if _, err := os.Stat(scp.Dir); !os.IsNotExist(err) {
			t.Errorf("control plane directory %s left behind (%v)", scp.Dir, err)
		}
		if scp.Healthy() == nil {
			t.Errorf("components still running after cleanup")
		}
		if conn, err := net.Dial("tcp", strings.TrimPrefix(scp.APIServerURL, "https://")); err == nil {
			conn.Close()
			t.Errorf("%s still accepts connections after cleanup", scp.APIServerURL)
		}
	})

	start := time.Now()
	var err error
	scp, err = harness.Start(ctx, t, harness.Options{Scheduler: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("second control plane started in %s", time.Since(start).Round(time.Millisecond))
	if scp.APIServerURL == cp.APIServerURL {
		t.Fatalf("both control planes serve %s", cp.APIServerURL)
	}
	const ns = "scale"
	if _, err := scp.CreateNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}

	start = time.Now()
	created, err := scp.CreateNodes(ctx, nodes, harness.NodeSpec{NamePrefix: "scale", CPU: "32", Memory: "128Gi", Zones: []string{"a", "b", "c"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d nodes Ready in %s", nodes, time.Since(start).Round(time.Millisecond))

	start = time.Now()
	for i := range deployments {
		spec := harness.WorkloadSpec{
			Namespace: ns,
			Name:      fmt.Sprintf("app-%d", i),
			Replicas:  replicas,
			Labels:    map[string]string{"scale": "true", "app": fmt.Sprintf("app-%d", i)},
		}
		if i < manualBindings {
			spec.SchedulerName = "manual-binding"
		}
		if _, err := scp.CreateDeployment(ctx, spec); err != nil {
			t.Fatal(err)
		}
	}
	names := nodeNames(created)
	for i := range manualBindings {
		if _, err := scp.BindPendingPods(ctx, ns, fmt.Sprintf("app=app-%d", i), replicas, names); err != nil {
			t.Fatal(err)
		}
	}
	pods, err := scp.WaitForPodsRunning(ctx, ns, "scale=true", deployments*replicas)
	if err != nil {
		t.Fatal(err)
	}
	perNode := map[string]int{}
	for _, p := range pods {
		perNode[p.Spec.NodeName]++
	}
	if len(perNode) != nodes {
		t.Errorf("pods on %d nodes, want all %d", len(perNode), nodes)
	}
	t.Logf("%d pods Running in %s", len(pods), time.Since(start).Round(time.Millisecond))
}
