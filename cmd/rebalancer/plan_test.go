package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// A dump that holds rebalancer's state ConfigMap gives plan the same
// cooldown a dry run reading that ConfigMap applies.
func TestPlanAppliesTheCooldownOfADumpsStateConfigMap(t *testing.T) {
	cluster, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	state := `---
apiVersion: v1
kind: ConfigMap
metadata: {name: rebalancer-state, namespace: rebalancer, labels: {app.kubernetes.io/managed-by: rebalancer}}
data:
  evictions.json: '[{"pod":"shop/web-old","workload":{"kind":"Deployment","namespace":"shop","name":"web"},"from":"node-a1","to":"node-a3","strategy":"RemoveDuplicates","at":"2026-11-20T11:58:00Z"}]'
---
apiVersion: v1
kind: ConfigMap
metadata: {name: unrelated, namespace: shop}
data: {evictions.json: "not ours"}
`
	dump := writeFile(t, "dump.yaml", string(cluster)+state)
	out, code, err := execute(t, "plan", "--snapshot", dump, "--now", "2026-11-20T12:00:00Z", "-o", "json")
	if code != exitOK {
		t.Fatal(err)
	}
	var doc struct {
		At    string `json:"at"`
		Moves []struct{ Pod string }
		Skip  []struct{ Pod, Category, Reason string } `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.At != "2026-11-20T12:00:00Z" {
		t.Errorf("at = %q, want the --now instant", doc.At)
	}
	for _, m := range doc.Moves {
		if strings.HasPrefix(m.Pod, "shop/web-") {
			t.Errorf("%s moved, though Deployment shop/web was evicted 2 minutes earlier", m.Pod)
		}
	}
	cooled := 0
	for _, s := range doc.Skip {
		if s.Category == "cooldown" && strings.HasPrefix(s.Pod, "shop/web-") {
			cooled++
		}
	}
	if cooled == 0 {
		t.Errorf("no shop/web pod skipped for the cooldown: %+v", doc.Skip)
	}
}
