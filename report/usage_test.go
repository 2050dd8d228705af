package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kube-rebalancer/rebalancer/planner"
)

// usagePlan is samplePlan balanced on metrics.k8s.io usage: node-a and
// node-c have samples, node-d has none, and one pod on them had none.
func usagePlan() *planner.Plan {
	p := samplePlan()
	p.Nodes[0].UsageBefore, p.Nodes[0].UsageAfter = map[string]float64{"cpu": 92, "memory": 60}, map[string]float64{"cpu": 48.5, "memory": 55}
	p.Nodes[1].UsageBefore, p.Nodes[1].UsageAfter = map[string]float64{"cpu": 5, "memory": 20}, map[string]float64{"cpu": 48.5, "memory": 25}
	p.Usage = &planner.UsageSummary{Sources: []string{"KubernetesMetrics"}, At: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), Nodes: 2, PodsByRequests: 1}
	p.Notes = []planner.Note{{Strategy: "LowNodeUtilization", Node: "node-d", Text: "neither a source nor a target: has no metrics.k8s.io sample"}}
	return p
}

// The table shows usage beside requests: a column per measured resource,
// "no sample" for a node without one, then where the usage came from and
// what the strategies said of the nodes they left out.
func TestTableShowsUsage(t *testing.T) {
	tests := []struct {
		name   string
		plan   *planner.Plan
		want   []string
		absent []string
	}{
		{
			name: "balanced on usage",
			plan: usagePlan(),
			want: []string{
				"USAGE (KubernetesMetrics) read 2026-11-20T12:00:00Z: 2 node(s) with a sample, 1 pod(s) on them without one counted by their requests",
				"NODE CPU MEMORY PODS CPU USED MEMORY USED",
				"node-a 85% → 61.3% 40% → 35% 10% → 8.2% 92% → 48.5% 60% → 55%",
				"node-d (cordoned) 0% 0% 0% no sample no sample",
				"NOTES\nSTRATEGY NODE NOTE\nLowNodeUtilization node-d neither a source nor a target: has no metrics.k8s.io sample",
			},
		},
		{
			name: "metrics that could not be read",
			plan: func() *planner.Plan {
				p := samplePlan()
				p.Moves = nil
				p.Usage = &planner.UsageSummary{Sources: []string{"KubernetesMetrics"}, Error: "reading /apis/metrics.k8s.io/v1beta1/nodes (is metrics-server installed?): the server could not find the requested resource"}
				return p
			}(),
			want: []string{
				"USAGE (KubernetesMetrics): 0 node(s) with a sample",
				"METRICS ERROR: reading /apis/metrics.k8s.io/v1beta1/nodes (is metrics-server installed?)",
			},
			absent: []string{"USED", "read 0001"},
		},
		{
			name:   "balanced on requests",
			plan:   samplePlan(),
			absent: []string{"USAGE", "USED", "NOTES", "no sample"},
		},
		{
			name: "a Prometheus rating",
			plan: func() *planner.Plan {
				p := samplePlan()
				p.Nodes[0].UsageBefore, p.Nodes[0].UsageAfter = map[string]float64{"query": 90}, map[string]float64{"query": 90}
				p.Usage = &planner.UsageSummary{Sources: []string{"Prometheus"}, Nodes: 1}
				return p
			}(),
			want: []string{"NODE CPU MEMORY PODS QUERY", "node-a 85% → 61.3% 40% → 35% 10% → 8.2% 90%"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := Print(&out, FromPlan(tt.plan), Table, false); err != nil {
				t.Fatal(err)
			}
			text := squeeze(out.String())
			for _, want := range tt.want {
				if !strings.Contains(text, squeeze(want)) {
					t.Errorf("table lacks %q:\n%s", want, out.String())
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(text, s) {
					t.Errorf("table has %q:\n%s", s, out.String())
				}
			}
		})
	}
}

// JSON carries the same: each node's usage before and after, the summary
// and the notes, under the names docs/output.md gives.
func TestJSONCarriesUsage(t *testing.T) {
	var out bytes.Buffer
	if err := Print(&out, FromPlan(usagePlan()), JSON, false); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Nodes []struct {
			Name        string             `json:"name"`
			UsageBefore map[string]float64 `json:"usageBefore"`
			UsageAfter  map[string]float64 `json:"usageAfter"`
		} `json:"nodes"`
		Usage struct {
			Sources        []string  `json:"sources"`
			At             time.Time `json:"at"`
			Nodes          int       `json:"nodes"`
			PodsByRequests int       `json:"podsByRequests"`
		} `json:"usage"`
		Notes []struct{ Strategy, Node, Text string } `json:"notes"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.Nodes[0].UsageBefore["cpu"]; got != 92 {
		t.Errorf("node-a's usageBefore.cpu = %v, want 92", got)
	}
	if got := doc.Nodes[1].UsageAfter["cpu"]; got != 48.5 {
		t.Errorf("node-c's usageAfter.cpu = %v, want 48.5", got)
	}
	if doc.Nodes[2].UsageBefore != nil {
		t.Errorf("node-d, without a sample, has usageBefore %v", doc.Nodes[2].UsageBefore)
	}
	if doc.Usage.Nodes != 2 || doc.Usage.PodsByRequests != 1 || len(doc.Usage.Sources) != 1 || doc.Usage.At.IsZero() {
		t.Errorf("usage = %+v, want 2 nodes, 1 pod by requests, KubernetesMetrics, a reading time", doc.Usage)
	}
	if len(doc.Notes) != 1 || doc.Notes[0].Node != "node-d" {
		t.Errorf("notes = %+v, want node-d's", doc.Notes)
	}
}
