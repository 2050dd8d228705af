package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kube-rebalancer/rebalancer/planner"
)

// The pending pods a plan places are listed under PLACEMENTS in the table
// and as placements in JSON; a plan without them shows neither.
func TestPlacementsShown(t *testing.T) {
	p := samplePlan()
	p.Placements = []planner.Placement{{Pod: "shop/big-0", Node: "node-a", Strategy: "DefragmentForPendingPods", Reason: "room made on node-a by 2 moves"}}
	var table, js bytes.Buffer
	if err := Print(&table, FromPlan(p), Table, false); err != nil {
		t.Fatal(err)
	}
	if err := Print(&js, FromPlan(p), JSON, false); err != nil {
		t.Fatal(err)
	}
	if text := squeeze(table.String()); !strings.Contains(text, "PLACEMENTS: 1 (pending pods planned onto the room the moves make)\nPOD NODE STRATEGY REASON\nshop/big-0 node-a DefragmentForPendingPods room made on node-a by 2 moves\n") {
		t.Errorf("the table does not list the placement:\n%s", table.String())
	}
	var doc struct {
		Placements []planner.Placement `json:"placements"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Placements) != 1 || doc.Placements[0] != p.Placements[0] {
		t.Errorf("JSON placements %+v, want %+v", doc.Placements, p.Placements)
	}
	table.Reset()
	js.Reset()
	if err := Print(&table, FromPlan(samplePlan()), Table, false); err != nil {
		t.Fatal(err)
	}
	if err := Print(&js, FromPlan(samplePlan()), JSON, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(table.String(), "PLACEMENTS") || strings.Contains(js.String(), "placements") {
		t.Errorf("a plan without placements shows some:\n%s\n%s", table.String(), js.String())
	}
}
