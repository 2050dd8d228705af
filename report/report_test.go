package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"sigs.k8s.io/yaml"

	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/planner"
)

func samplePlan() *planner.Plan {
	return &planner.Plan{
		Moves: []planner.Move{
			{Pod: "shop/web-1", From: "node-a", To: "node-c", Strategy: "LowNodeUtilization", Reason: "node-a is over-utilized (cpu 85% > 50%)"},
			{Pod: "shop/web-2", From: "node-a", To: "node-c", Strategy: "LowNodeUtilization", Reason: "node-a is over-utilized (cpu 80% > 50%)"},
			{Pod: "ci/job-9", From: "node-b", Strategy: "RemoveFailedPods", Reason: "failed: Evicted"},
		},
		Skipped: []planner.Skip{
			{Pod: "shop/db-0", Strategy: "LowNodeUtilization", Category: planner.PDBBudget, Reason: "PodDisruptionBudget shop/db allows no more disruptions (0 allowed, all used)"},
			{Pod: "kube-system/dns", Strategy: "LowNodeUtilization", Category: planner.Protected, Reason: "priority 2000000000 is at or above the protected threshold"},
			{Pod: "shop/web-3", Strategy: "LowNodeUtilization", Category: planner.Protected, Reason: "bare pod"},
		},
		Nodes: []planner.NodeUsage{
			{Name: "node-a", Before: map[string]float64{"cpu": 85, "memory": 40, "pods": 10}, After: map[string]float64{"cpu": 61.3, "memory": 35, "pods": 8.2}},
			{Name: "node-c", Unschedulable: false, Before: map[string]float64{"cpu": 10, "memory": 5, "pods": 2}, After: map[string]float64{"cpu": 33.8, "memory": 10, "pods": 3.6}},
			{Name: "node-d", Unschedulable: true, Before: map[string]float64{"cpu": 0, "memory": 0, "pods": 0}, After: map[string]float64{"cpu": 0, "memory": 0, "pods": 0}},
		},
	}
}

func executed() *Report {
	p := samplePlan()
	return FromOutcomes(p, []evictor.Outcome{
		{Move: p.Moves[0], Result: evictor.Evicted},
		{Move: p.Moves[1], Result: evictor.Refused, Message: "Cannot evict pod as it would violate the pod's disruption budget."},
		{Move: p.Moves[2], Result: evictor.Evicted},
	})
}

func TestSummary(t *testing.T) {
	r := executed()
	if r.Summary.Moves != 3 || r.Summary.Results[evictor.Evicted] != 2 || r.Summary.Results[evictor.Refused] != 1 {
		t.Errorf("results = %v over %d moves, want 2 evicted and 1 refused of 3", r.Summary.Results, r.Summary.Moves)
	}
	if r.Summary.Skipped[planner.Protected] != 2 || r.Summary.Skipped[planner.PDBBudget] != 1 {
		t.Errorf("skipped = %v, want 2 protected and 1 pdb", r.Summary.Skipped)
	}
	if got := FromPlan(samplePlan()); !got.DryRun || got.Summary.Results != nil {
		t.Errorf("a plan not executed: dryRun %v, results %v; want true and none", got.DryRun, got.Summary.Results)
	}
}

func TestTable(t *testing.T) {
	var out bytes.Buffer
	if err := Print(&out, executed(), Table, false); err != nil {
		t.Fatal(err)
	}
	text := squeeze(out.String())
	for _, want := range []string{
		"MOVES: 3",
		"shop/web-1  node-a  →  node-c  LowNodeUtilization  evicted  node-a is over-utilized (cpu 85% > 50%)",
		"refused  node-a is over-utilized (cpu 80% > 50%) [Cannot evict pod as it would violate the pod's disruption budget.]",
		"ci/job-9    node-b  →  (not replaced)",
		"SKIPPED: 3 (2 protected, 1 pdb); -v lists them",
		"node-a              85% → 61.3%",
		"node-d (cordoned)   0%",
	} {
		if !strings.Contains(text, squeeze(want)) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(text, "shop/db-0") {
		t.Error("skipped pods listed without -v")
	}
	out.Reset()
	if err := Print(&out, FromPlan(samplePlan()), Table, true); err != nil {
		t.Fatal(err)
	}
	text = squeeze(out.String())
	for _, want := range []string{"MOVES (dry run: nothing was evicted): 3", "shop/db-0 LowNodeUtilization pdb"} {
		if !strings.Contains(text, want) {
			t.Errorf("verbose dry-run table lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "RESULT") {
		t.Error("a dry run has a RESULT column")
	}
}

func TestMachineFormats(t *testing.T) {
	for _, format := range []string{JSON, YAML} {
		var out bytes.Buffer
		if err := Print(&out, executed(), format, false); err != nil {
			t.Fatal(err)
		}
		body := out.Bytes()
		if format == YAML {
			var err error
			if body, err = yaml.YAMLToJSON(body); err != nil {
				t.Fatal(err)
			}
		}
		var doc struct {
			Moves []struct {
				Pod, From, To, Strategy, Reason, Result string
			} `json:"moves"`
			Skipped []struct{ Pod, Strategy, Category, Reason string } `json:"skipped"`
			Nodes   []struct {
				Name          string
				Before, After map[string]float64
			} `json:"nodes"`
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if len(doc.Moves) != 3 || doc.Moves[1].Result != "refused" || doc.Moves[0].To != "node-c" || doc.Moves[0].Reason == "" {
			t.Errorf("%s moves = %+v", format, doc.Moves)
		}
		if len(doc.Skipped) != 3 || doc.Skipped[0].Category != "pdb" {
			t.Errorf("%s skipped = %+v", format, doc.Skipped)
		}
		if len(doc.Nodes) != 3 || doc.Nodes[0].After["cpu"] != 61.3 {
			t.Errorf("%s nodes = %+v", format, doc.Nodes)
		}
	}
	if err := Print(&bytes.Buffer{}, executed(), "xml", false); err == nil {
		t.Error("Print accepted format xml")
	}
}

func TestMetrics(t *testing.T) {
	start := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	m := NewMetrics()
	if got := testutil.CollectAndCount(m.lastSuccess); got != 0 {
		t.Errorf("last success series = %d before any cycle, want 0: no success is known", got)
	}
	ok := NewRunRecord(start, start.Add(3*time.Second), false, executed(), nil)
	m.Observe(ok, executed())
	failed := NewRunRecord(start.Add(time.Minute), start.Add(time.Minute+time.Second), true, FromPlan(samplePlan()), errors.New("2 eviction(s) failed"))
	m.Observe(failed, FromPlan(samplePlan()))
	if got := testutil.ToFloat64(m.evictions.WithLabelValues("LowNodeUtilization", "refused")); got != 1 {
		t.Errorf("refused evictions = %v, want 1", got)
	}
	if got := testutil.ToFloat64(m.planned.WithLabelValues("LowNodeUtilization")); got != 4 {
		t.Errorf("planned LowNodeUtilization moves = %v, want 4 over two cycles", got)
	}
	if got := testutil.ToFloat64(m.skipped.WithLabelValues("protected")); got != 4 {
		t.Errorf("skipped protected = %v, want 4", got)
	}
	if got := testutil.ToFloat64(m.lastOK); got != 0 {
		t.Errorf("last cycle success = %v after a failed cycle, want 0", got)
	}
	if got, want := testutil.ToFloat64(m.lastRun), float64(start.Add(time.Minute+time.Second).Unix()); got != want {
		t.Errorf("last cycle timestamp = %v, want the failed cycle's end %v", got, want)
	}
	if got, want := testutil.ToFloat64(m.lastSuccess.WithLabelValues()), float64(start.Add(3*time.Second).Unix()); got != want {
		t.Errorf("last success timestamp = %v, want the first cycle's end %v", got, want)
	}
	if got := testutil.ToFloat64(m.lastDryRun); got != 1 {
		t.Errorf("last cycle dry run = %v, want 1", got)
	}
	// The dry run evicted nothing: every result of the last cycle is 0,
	// not the first cycle's counts, and not absent.
	if got := testutil.CollectAndCount(m.lastEvictions); got != len(results) {
		t.Errorf("last cycle evictions series = %d, want one per result (%d)", got, len(results))
	}
	if got := testutil.ToFloat64(m.lastEvictions.WithLabelValues("refused")); got != 0 {
		t.Errorf("last cycle refused evictions = %v, want 0", got)
	}
	if got := testutil.CollectAndCount(m.duration); got != 1 {
		t.Errorf("duration series = %d, want 1", got)
	}
}

// A failed run keeps the time of the last success from the record the
// previous run left, so that "no success for N minutes" can be alerted on
// across a CronJob's runs.
func TestRunRecordFollow(t *testing.T) {
	start := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	earlier := start.Add(-10 * time.Minute)
	prevOK, _ := json.Marshal(RunRecord{Succeeded: true, LastSuccess: &earlier})
	prevFailed, _ := json.Marshal(RunRecord{Error: "boom", LastSuccess: &earlier})
	prevNever, _ := json.Marshal(RunRecord{Error: "boom"})
	tests := []struct {
		name string
		err  error
		prev []byte
		want *time.Time
	}{
		{name: "success is its own last success", prev: prevOK, want: ptr(start.Add(time.Second))},
		{name: "failure after a success", err: errors.New("invalid policy"), prev: prevOK, want: &earlier},
		{name: "failure after failures since a success", err: errors.New("invalid policy"), prev: prevFailed, want: &earlier},
		{name: "failure, never a success", err: errors.New("invalid policy"), prev: prevNever},
		{name: "failure, first run", err: errors.New("invalid policy")},
		{name: "failure after a corrupt record", err: errors.New("invalid policy"), prev: []byte("{not json")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRunRecord(start, start.Add(time.Second), false, nil, tt.err)
			r.Follow(tt.prev)
			if (r.LastSuccess == nil) != (tt.want == nil) || r.LastSuccess != nil && !r.LastSuccess.Equal(*tt.want) {
				t.Errorf("LastSuccess = %v, want %v", r.LastSuccess, tt.want)
			}
			if r.Succeeded != (tt.err == nil) || (r.Error != "") != (tt.err != nil) {
				t.Errorf("Succeeded = %v, Error = %q for error %v", r.Succeeded, r.Error, tt.err)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// squeeze collapses runs of spaces, so that checks do not depend on the
// table's column widths.
func squeeze(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}

// With replacements predicted, TO is where the pods' scheduler is expected
// to put each replacement: the table heads the column so and says it, and
// the JSON carries predicted: true. A steered plan says neither.
func TestPredictedTo(t *testing.T) {
	for _, predicted := range []bool{false, true} {
		p := samplePlan()
		p.Predicted = predicted
		var table, js bytes.Buffer
		if err := Print(&table, FromPlan(p), Table, false); err != nil {
			t.Fatal(err)
		}
		if err := Print(&js, FromPlan(p), JSON, false); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Predicted *bool `json:"predicted"`
		}
		if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		text := squeeze(table.String())
		if got := strings.Contains(text, "POD FROM TO (predicted) STRATEGY REASON"); got != predicted {
			t.Errorf("predicted %v: the header says TO (predicted): %v\n%s", predicted, got, table.String())
		}
		if got := strings.Contains(text, "TO is a prediction, not a promise"); got != predicted {
			t.Errorf("predicted %v: the table says TO is a prediction: %v\n%s", predicted, got, table.String())
		}
		if got := doc.Predicted != nil && *doc.Predicted; got != predicted {
			t.Errorf("predicted %v: JSON predicted %v", predicted, doc.Predicted)
		}
	}
}

// The implicit budgets the moves count against are named in the table, each
// once, and on each move in JSON.
func TestImplicitBudgetsShown(t *testing.T) {
	const budget = "implicit budget: maxUnavailable 25% of Deployment shop/web: 1 of 4 replicas a step"
	p := samplePlan()
	p.Moves[0].Budget, p.Moves[0].Step = budget, 1
	p.Moves[1].Budget, p.Moves[1].Step = budget, 2
	p.Moves[2].Step = 2
	var table, js bytes.Buffer
	if err := Print(&table, FromPlan(p), Table, false); err != nil {
		t.Fatal(err)
	}
	if err := Print(&js, FromPlan(p), JSON, false); err != nil {
		t.Fatal(err)
	}
	text := table.String()
	head := "IMPLICIT BUDGETS (no PodDisruptionBudget covers these workloads: each keeps to its own maxUnavailable a step)\n" +
		"maxUnavailable 25% of Deployment shop/web: 1 of 4 replicas a step\n\n"
	if !strings.Contains(text, head) {
		t.Errorf("the table does not name the budget once under IMPLICIT BUDGETS:\n%s", text)
	}
	var doc struct {
		Moves []struct {
			Budget string `json:"budget"`
		} `json:"moves"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Moves) != 3 || doc.Moves[0].Budget != budget || doc.Moves[2].Budget != "" {
		t.Errorf("JSON moves %+v, want the budget on the first two", doc.Moves)
	}
	table.Reset()
	if err := Print(&table, FromPlan(samplePlan()), Table, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(table.String(), "IMPLICIT BUDGETS") {
		t.Errorf("a plan without implicit budgets lists some:\n%s", table.String())
	}
}

// A move made by surge says so: in the table after its node, counted under
// SURGES, and as surge: true in JSON.
func TestSurgesShown(t *testing.T) {
	p := samplePlan()
	p.Moves[1].Surge = true
	var table, js bytes.Buffer
	if err := Print(&table, FromPlan(p), Table, false); err != nil {
		t.Fatal(err)
	}
	if err := Print(&js, FromPlan(p), JSON, false); err != nil {
		t.Fatal(err)
	}
	text := squeeze(table.String())
	for _, want := range []string{p.Moves[1].To + " (surge)", "SURGES: 1 move is made before the pod goes (evictable.makeBeforeBreak)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the table lacks %q:\n%s", want, table.String())
		}
	}
	if strings.Count(text, "(surge)") != 1 {
		t.Errorf("only the surge is marked:\n%s", table.String())
	}
	var doc struct {
		Moves []struct {
			Surge bool `json:"surge"`
		} `json:"moves"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Moves) != 3 || doc.Moves[0].Surge || !doc.Moves[1].Surge {
		t.Errorf("JSON moves %+v, want surge on the second only", doc.Moves)
	}
}
