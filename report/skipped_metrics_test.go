package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/planner"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// examplePlan plans the README's example cluster under the built-in
// default policy.
func examplePlan(t *testing.T) *planner.Plan {
	t.Helper()
	objs, _, err := cluster.ReadFile("../examples/cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := cluster.New(objs, time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(profile.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	return (&planner.Planner{Policy: policy.Default(), Placer: e}).Plan(snap)
}

// rebalancer_candidates_skipped_total counts, by category, exactly what the
// SKIPPED line of the same cycle's report says.
func TestSkippedMetricAgreesWithTheSkippedLine(t *testing.T) {
	r := FromPlan(examplePlan(t))
	var out bytes.Buffer
	if err := Print(&out, r, Table, false); err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^SKIPPED: (\d+) \(([^)]*)\)`).FindStringSubmatch(out.String())
	if line == nil {
		t.Fatalf("no SKIPPED line with categories in:\n%s", out.String())
	}
	total, _ := strconv.Atoi(line[1])
	byCategory := map[string]float64{}
	sum := 0
	for _, part := range strings.Split(line[2], ", ") {
		var n int
		var cat string
		if _, err := fmt.Sscanf(part, "%d %s", &n, &cat); err != nil {
			t.Fatalf("SKIPPED part %q: %v", part, err)
		}
		byCategory[cat] = float64(n)
		sum += n
	}
	if sum != total || total != len(r.Skipped) {
		t.Fatalf("SKIPPED: %d, its categories add up to %d, the report lists %d", total, sum, len(r.Skipped))
	}

	m := NewMetrics()
	end := time.Now()
	m.Observe(NewRunRecord(end.Add(-time.Second), end, true, r, nil), r)
	if got := testutil.CollectAndCount(m.skipped); got != len(byCategory) {
		t.Errorf("rebalancer_candidates_skipped_total has %d series; SKIPPED names %d categories (%s)", got, len(byCategory), line[2])
	}
	for cat, n := range byCategory {
		if got := testutil.ToFloat64(m.skipped.WithLabelValues(cat)); got != n {
			t.Errorf("rebalancer_candidates_skipped_total{category=%q} = %v; SKIPPED says %v", cat, got, n)
		}
	}
}
