package app

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"k8s.io/klog/v2"
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

// A dump of some of the nodes leaves the other nodes' pods out of the plan;
// the log says so rather than leaving it to the user to notice.
func TestPlanLogsPodsOnNodesMissingFromTheDump(t *testing.T) {
	logs := captureLogs(t)
	dump := writeFile(t, "dump.yaml", `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: node-a}
  status:
    allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
    conditions: [{type: Ready, status: "True"}]
- apiVersion: v1
  kind: Pod
  metadata: {name: web-1, namespace: shop}
  spec: {nodeName: node-a, containers: [{name: web, image: web}]}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-2, namespace: shop}
  spec: {nodeName: node-b, containers: [{name: web, image: web}]}
  status: {phase: Running}
`)
	if _, code, err := execute(t, "plan", "--snapshot", dump); code != exitOK {
		t.Fatal(err)
	}
	klog.Flush()
	got := logs.String()
	for _, want := range []string{"not in the snapshot", "pods=1", `first="shop/web-2"`, `node="node-b"`} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %s:\n%s", want, got)
		}
	}
}
