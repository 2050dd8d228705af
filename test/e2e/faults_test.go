package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/report"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// TestAPIServerStopsMidRun stops the API server after the first eviction of
// a run slowed to one request a second: the run exits 1 and its report still
// says what was done, which the cluster confirms once the API server is back
// (evicted pods gone, the others untouched). It has a control plane of its
// own, since it breaks it.
func TestAPIServerStopsMidRun(t *testing.T) {
	cp := ownControlPlane(t, harness.Options{})
	ctx := t.Context()
	f := newFixture(t, cp, "fault", 4, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	web := harness.WorkloadSpec{Name: "web", Replicas: 8, CPU: "500m"}
	before := f.pile(web, f.nodes[0])
	pol := f.policy("limits: {perNode: 6}\n" + balancing)

	type outcome struct {
		r   *result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		r, err := execRebalancer(t, false, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--no-state", "--qps", "1", "--burst", "1", "-o", "json")
		done <- outcome{r, err}
	}()
	var finished *outcome
	err := harness.WaitFor(ctx, 2*time.Minute, "the run's first eviction", func(ctx context.Context) (bool, error) {
		select {
		case o := <-done:
			finished = &o
			return false, fmt.Errorf("the run ended before any eviction was seen")
		default:
		}
		list, err := cp.Client.CoreV1().Pods(f.ns).List(ctx, metav1.ListOptions{LabelSelector: web.Selector()})
		if err != nil {
			return false, err
		}
		now := map[string]corev1.Pod{}
		for _, p := range list.Items {
			now[p.Name] = p
		}
		return len(unchanged(before, now)) > 0, nil
	})
	if err != nil {
		if finished != nil && finished.r != nil {
			t.Logf("%s", finished.r)
		}
		t.Fatal(err)
	}
	if err := cp.StopAPIServer(); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()

	var o outcome
	select {
	case o = <-done:
	case <-time.After(3 * time.Minute):
		t.Fatalf("the run did not end within 3 minutes of the API server stopping")
	}
	if o.err != nil {
		t.Fatal(o.err)
	}
	r := o.r
	t.Logf("the run ended %s after the API server stopped", r.end.Sub(stopped).Round(time.Millisecond))
	if r.code != 1 {
		t.Errorf("exit code %d, want 1", r.code)
	}
	if msg := errorLine(r); !strings.Contains(msg, "unreachable") {
		t.Errorf("error %q does not say the API server is unreachable", msg)
	} else {
		t.Logf("%s", msg)
	}
	rep := decode(t, r)
	results := countBy(rep.Moves, func(m report.Move) string { return string(m.Result) })
	t.Logf("%d moves: %v", len(rep.Moves), results)
	if results[string(evictor.Evicted)] == 0 {
		t.Errorf("no move reported evicted, though the test saw an eviction before stopping the API server")
	}
	if results[string(evictor.Failed)]+results[string(evictor.NotAttempted)] == 0 {
		t.Errorf("every move reported done; the API server stopped during the run")
	}
	seenFailure := false
	for _, m := range rep.Moves {
		switch m.Result {
		case evictor.Evicted:
			if seenFailure {
				t.Errorf("%s evicted after an earlier move failed: the run should stop at the first unreachable API server", m.Pod)
			}
		case evictor.Failed, evictor.NotAttempted:
			seenFailure = true
			if m.Message == "" {
				t.Errorf("%s is %s without a message", m.Pod, m.Result)
			}
		default:
			t.Errorf("%s: result %q (%s); want evicted, failed or not-attempted", m.Pod, m.Result, m.Message)
		}
	}

	// The report is the truth: check it against the cluster.
	if err := cp.StartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	after := pods(t, cp, f.ns, web.Selector())
	byUID := map[string]corev1.Pod{}
	for _, p := range after {
		byUID[string(p.UID)] = p
	}
	for _, m := range rep.Moves {
		p, exists := byUID[string(m.UID)]
		switch {
		case m.Result == evictor.Evicted && exists && p.DeletionTimestamp == nil:
			t.Errorf("%s reported evicted but still runs", m.Pod)
		case m.Result != evictor.Evicted && (!exists || p.DeletionTimestamp != nil):
			t.Errorf("%s reported %s but was evicted", m.Pod, m.Result)
		}
	}
}

// TestInvalidPolicyEvictsNothing: a run with an invalid policy exits 2,
// names each bad field with its value, and evicts nothing from a cluster
// where the corrected policy would move pods.
func TestInvalidPolicyEvictsNothing(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, "invalid", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	web := harness.WorkloadSpec{Name: "web", Replicas: 6, CPU: "500m"}
	before := f.pile(web, f.nodes[0])

	valid := f.policy("limits: {perNode: 2}\n" + balancing)
	dry := rebalancer(t, "run", "--dry-run", "--kubeconfig", cp.Kubeconfig, "--policy", valid, "-o", "json")
	if dry.code != 0 || len(decode(t, dry).Moves) == 0 {
		t.Fatalf("the valid policy plans no move (exit %d); the test needs one to show the invalid policy prevents it", dry.code)
	}

	invalid := f.policy("limits: {perNode: -1}\n" + strings.Replace(balancing, "targetThresholds: {cpu: 50", "targetThresholds: {cpu: 120", 1))
	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", invalid, "-o", "json")
	if r.code != 2 {
		t.Errorf("exit code %d, want 2", r.code)
	}
	for _, want := range []string{
		invalid + ": limits.perNode: -1",
		invalid + ": strategies.LowNodeUtilization.targetThresholds.cpu: 120",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not report %q", want)
		}
	}
	if r.stdout != "" {
		t.Errorf("an invalid policy printed a report:\n%s", r.stdout)
	}
	after := pods(t, cp, f.ns, "")
	if problems := unchanged(before, after); len(problems) > 0 || len(after) != len(before) {
		t.Errorf("pods changed (%d before, %d after): %s", len(before), len(after), strings.Join(problems, "; "))
	}
	if evs := rebalancerEvents(t, cp, f.ns); len(evs) > 0 {
		t.Errorf("%d events recorded", len(evs))
	}
}
