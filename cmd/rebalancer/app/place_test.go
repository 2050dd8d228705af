package app

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestPlaceExplainsEveryNode(t *testing.T) {
	pod := writeFile(t, "pod.yaml", `apiVersion: v1
kind: Pod
metadata: {name: big, namespace: shop}
spec:
  containers: [{name: app, image: app:1, resources: {requests: {cpu: "3"}}}]
`)
	out, code, err := execute(t, "place", "--snapshot", example, pod, "-o", "json")
	if code != exitOK {
		t.Fatal(err)
	}
	var res struct {
		Node    string `json:"node"`
		Message string `json:"message"`
		Nodes   []struct {
			Name     string           `json:"name"`
			Feasible bool             `json:"feasible"`
			Reason   *string          `json:"reason"`
			Score    *int64           `json:"score"`
			Scores   map[string]int64 `json:"scores"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	// 3 CPUs fit only node-a3 (11% used) and node-b3 (cordoned).
	if res.Node != "node-a3" || res.Message != "" {
		t.Errorf("node %q, message %q; want node-a3 and no message", res.Node, res.Message)
	}
	if len(res.Nodes) != 6 {
		t.Fatalf("%d nodes explained, want 6", len(res.Nodes))
	}
	reasons := map[string]string{}
	for _, n := range res.Nodes {
		if n.Reason == nil || n.Score == nil {
			t.Errorf("node %s lacks reason or score", n.Name)
			continue
		}
		reasons[n.Name] = *n.Reason
		if n.Feasible && len(n.Scores) == 0 {
			t.Errorf("feasible node %s has no plugin scores", n.Name)
		}
	}
	if reasons["node-b3"] != "node(s) were unschedulable" || reasons["node-a1"] != "Insufficient cpu" {
		t.Errorf("reasons = %v", reasons)
	}
}

func TestPlaceSaysWhyAPodFitsNowhere(t *testing.T) {
	pod := writeFile(t, "pod.yaml", `apiVersion: v1
kind: Pod
metadata: {name: huge, namespace: shop}
spec:
  containers: [{name: app, image: app:1, resources: {requests: {cpu: "5"}}}]
`)
	out, code, err := execute(t, "place", "--snapshot", example, pod)
	if code != exitOK {
		t.Fatal(err)
	}
	want := "shop/huge fits nowhere: 0/6 nodes are available: 1 node(s) were unschedulable, 5 Insufficient cpu."
	if !strings.Contains(out, want) {
		t.Errorf("output:\n%s\nwant it to contain:\n%s", out, want)
	}
}

func TestPlaceRejectsWhatHasNoPod(t *testing.T) {
	svc := writeFile(t, "svc.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n")
	_, code, err := execute(t, "place", "--snapshot", example, svc)
	if code != exitUsage || !strings.Contains(err.Error(), "has no pod to place") {
		t.Errorf("exit %d, error %v; want 2 and a clear message", code, err)
	}
}
