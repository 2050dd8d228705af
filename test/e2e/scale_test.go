package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kube-rebalancer/rebalancer/report"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// TestScaleDryRun200Nodes6000Pods is a smoke test of one dry-run cycle at
// the size the harness supports: 200 kwok nodes, 6,000 pods, 150 nodes
// crowded and 50 empty. It logs the cycle's wall time, the child's peak
// RSS and the number of moves, and asserts only sane bounds: timings on a
// shared 2-core machine vary too much for more. It has a control plane of
// its own, so that the other tests' runs do not read 6,000 pods.
func TestScaleDryRun200Nodes6000Pods(t *testing.T) {
	const (
		nodes       = 200
		crowded     = 150
		deployments = 40
		replicas    = 150
		perNode     = 5
	)
	cp := ownControlPlane(t, harness.Options{})
	ctx := t.Context()
	start := time.Now()
	f := newFixture(t, cp, "scale", nodes, harness.NodeSpec{CPU: "6", Memory: "32Gi", Zones: []string{"a", "b", "c"}})
	t.Logf("%d nodes Ready in %s", nodes, time.Since(start).Round(time.Millisecond))

	// Each Deployment puts one pod on each crowded node: 40 × 100m = 4 cpu
	// of 6 (67%, above the 50% target), while 50 nodes stay empty.
	start = time.Now()
	specs := make([]harness.WorkloadSpec, deployments)
	for i := range specs {
		specs[i] = harness.WorkloadSpec{
			Namespace: f.ns, Name: fmt.Sprintf("app-%d", i), Replicas: replicas, SchedulerName: manualScheduler,
			Labels: map[string]string{"scale": "true", "app": fmt.Sprintf("app-%d", i)},
		}
		if _, err := cp.CreateDeployment(ctx, specs[i]); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range specs {
		if _, err := cp.BindPendingPods(ctx, f.ns, s.Selector(), replicas, f.nodes[:crowded]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cp.WaitForPodsRunning(ctx, f.ns, "scale=true", deployments*replicas); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d pods Running in %s", deployments*replicas, time.Since(start).Round(time.Millisecond))

	pol := f.policy(fmt.Sprintf("limits: {perNode: %d}\n", perNode) + balancing)
	r := measuredRebalancer(t, "run", "--dry-run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "-o", "json")
	if r.code != 0 {
		t.Fatalf("dry run exited %d", r.code)
	}
	rep := decode(t, r)
	t.Logf("one dry-run cycle over %d nodes and %d pods: %s wall, peak RSS %d KiB (%.0f MiB), %d moves, %d skipped %v",
		nodes, deployments*replicas, r.wall().Round(time.Millisecond), r.maxRSSKiB, float64(r.maxRSSKiB)/1024, len(rep.Moves), len(rep.Skipped), rep.Summary.Skipped)
	var phases []string
	for _, m := range klogTook.FindAllStringSubmatch(r.stderr, -1) {
		phases = append(phases, m[1]+" "+m[2])
	}
	t.Logf("the binary's own account: %s", strings.Join(phases, ", "))
	// Reading ru_maxrss of a direct child would have reported this test
	// process's peak instead (see maxRSSKiB): say how far off it would be.
	t.Logf("peak RSS measured from a small parent whose own peak, %d KiB, is the floor; this test process's peak is %d KiB",
		r.floorKiB, vmHWMKiB("self"))

	if limit := 3 * time.Minute; r.wall() > limit {
		t.Errorf("the cycle took %s, over the generous %s", r.wall().Round(time.Millisecond), limit)
	}
	if r.maxRSSKiB <= 0 || r.maxRSSKiB > 2<<20 {
		t.Errorf("peak RSS %d KiB: want a measured value under 2 GiB", r.maxRSSKiB)
	}
	if len(rep.Nodes) != nodes {
		t.Errorf("the report lists %d nodes, want %d", len(rep.Nodes), nodes)
	}
	if len(rep.Moves) == 0 {
		t.Errorf("no move; want some off the %d crowded nodes", crowded)
	}
	// perNode bounds each step: a run waits between steps.
	fromInStep := countBy(rep.Moves, func(m report.Move) string { return fmt.Sprintf("%s in step %d", m.From, m.Step) })
	for k, n := range fromInStep {
		if n > perNode {
			t.Errorf("%d moves off %s, above perNode %d", n, k, perNode)
		}
	}
	from := countBy(rep.Moves, func(m report.Move) string { return m.From })
	to := countBy(rep.Moves, func(m report.Move) string { return m.To })
	for _, n := range f.nodes[crowded:] {
		if from[n] > 0 {
			t.Errorf("%d moves off %s, which was empty", from[n], n)
		}
	}
	for _, n := range f.nodes[:crowded] {
		if to[n] > 0 {
			t.Errorf("%d moves onto %s, which is crowded", to[n], n)
		}
	}
}

// klogTook finds the durations run logs for its phases.
var klogTook = regexp.MustCompile(`"(Read the cluster|Planned|Cycle done)"[^\n]*took="([^"]+)"`)
