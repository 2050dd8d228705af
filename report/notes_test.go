package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kube-rebalancer/rebalancer/planner"
)

// nothingMovedPlan is a plan of no moves whose strategy found pods to move,
// with pods waiting for a node.
func nothingMovedPlan() *planner.Plan {
	p := samplePlan()
	p.Moves = nil
	p.Notes = []planner.Note{
		{Strategy: "RemoveDuplicates", Text: "found 12 pods to move, moved none: 8 no-fit, 4 futile",
			Skipped: map[planner.Category]int{planner.NoFit: 8, planner.Futile: 4}},
		{Text: "3 pods pending as unschedulable (blog: 1, shop: 2); no strategy of this policy places pending pods; " +
			"1 pod gated by spec.schedulingGates, which the scheduler does not try until they are removed",
			Pending: &planner.PendingPods{Unschedulable: 3, Namespaces: map[string]int{"blog": 1, "shop": 2}, SchedulingGated: 1}},
	}
	return p
}

// The table's notes say what a strategy found and could not move, and the
// pods that wait; a note of the cycle has no strategy.
func TestTableSaysWhyNothingMoved(t *testing.T) {
	var out bytes.Buffer
	if err := Print(&out, FromPlan(nothingMovedPlan()), Table, false); err != nil {
		t.Fatal(err)
	}
	text := squeeze(out.String())
	for _, want := range []string{
		"MOVES (dry run: nothing was evicted): 0",
		"NOTES\nSTRATEGY NODE NOTE\nRemoveDuplicates - found 12 pods to move, moved none: 8 no-fit, 4 futile",
		"\n- - 3 pods pending as unschedulable (blog: 1, shop: 2); no strategy of this policy places pending pods; 1 pod gated by spec.schedulingGates",
	} {
		if !strings.Contains(text, squeeze(want)) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}

// JSON carries the notes' counts under the names docs/output.md gives.
func TestJSONCarriesNotesCounts(t *testing.T) {
	var out bytes.Buffer
	if err := Print(&out, FromPlan(nothingMovedPlan()), JSON, false); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Notes []map[string]json.RawMessage `json:"notes"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Notes) != 2 {
		t.Fatalf("notes = %s, want 2", out.String())
	}
	for i, want := range []map[string]string{
		{"strategy": `"RemoveDuplicates"`, "skipped": `{"futile":4,"no-fit":8}`},
		{"pending": `{"unschedulable":3,"namespaces":{"blog":1,"shop":2},"schedulingGated":1}`},
	} {
		for k, v := range want {
			if got := string(doc.Notes[i][k]); squeezeJSON(got) != v {
				t.Errorf("notes[%d].%s = %s, want %s", i, k, got, v)
			}
		}
	}
	if _, ok := doc.Notes[1]["strategy"]; ok {
		t.Errorf("a note of the cycle has a strategy: %s", out.String())
	}
}

func squeezeJSON(s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return s
	}
	return b.String()
}
