package app

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/test/klogtest"
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
	logs := klogtest.Capture(t, 0)
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

// A dump with objects that do not decode plans nothing: exit 2, and every
// such object is named with its field, on a line of its own that names the
// file, as a policy's problems are.
func TestPlanRefusesADumpWithObjectsThatDoNotDecode(t *testing.T) {
	cluster, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	dump := writeFile(t, "dump.yaml", string(cluster)+`---
apiVersion: v1
kind: Pod
metadata: {name: web-1, namespace: default}
spec:
  nodeName: node-a1
  containers: [{name: web, image: web:1, resources: {requests: {cpu: abc}}}]
---
apiVersion: v1
kind: Node
metadata: {name: node-x}
status: {allocatable: {cpu: "-4"}}
`)
	out, code, err := execute(t, "plan", "--snapshot", dump, "-o", "json")
	if code != exitUsage {
		t.Fatalf("exit code %d (%v), want %d", code, err, exitUsage)
	}
	if out != "" {
		t.Errorf("printed a plan:\n%s", out)
	}
	want := []string{
		dump + `: Pod default/web-1: spec.containers[0].resources.requests.cpu: Invalid value: "abc": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
		dump + `: Node node-x: status.allocatable.cpu: Invalid value: "-4": must be greater than or equal to 0`,
	}
	if got := err.Error(); got != strings.Join(want, "\n") {
		t.Errorf("error:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

// A dump's state ConfigMap carries the counts of consecutive observations
// as it carries the evictions: hot was over-utilized, and idle
// under-utilized, in two earlier runs, and this dump's samples are newer,
// so the plan of the dump moves as the third run would. Without the
// state, each node is in its first observation.
func TestPlanGoesOnFromADumpsObservations(t *testing.T) {
	const dump = `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: hot}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, conditions: [{type: Ready, status: "True"}]}}
- {apiVersion: v1, kind: Node, metadata: {name: idle}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, conditions: [{type: Ready, status: "True"}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: web-0, namespace: shop, creationTimestamp: "2026-11-20T10:00:00Z"}, spec: {nodeName: hot, containers: [{name: app, image: web, resources: {requests: {cpu: 400m}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: web-1, namespace: shop, creationTimestamp: "2026-11-20T10:00:00Z"}, spec: {nodeName: hot, containers: [{name: app, image: web, resources: {requests: {cpu: 400m}}}]}, status: {phase: Running}}
- {apiVersion: metrics.k8s.io/v1beta1, kind: NodeMetrics, metadata: {name: hot}, timestamp: "2026-11-20T11:59:50Z", window: 15s, usage: {cpu: 3200m, memory: 1Gi}}
- {apiVersion: metrics.k8s.io/v1beta1, kind: NodeMetrics, metadata: {name: idle}, timestamp: "2026-11-20T11:59:50Z", window: 15s, usage: {cpu: 100m, memory: 1Gi}}
`
	const state = `- apiVersion: v1
  kind: ConfigMap
  metadata: {name: rebalancer-state, namespace: rebalancer, labels: {app.kubernetes.io/managed-by: rebalancer}}
  data:
    format: v1
    observations.json: '[{"strategy":"LowNodeUtilization","node":"hot","class":"over","count":2,"at":"2026-11-20T11:57:50Z"},{"strategy":"LowNodeUtilization","node":"idle","class":"under","count":2,"at":"2026-11-20T11:57:50Z"}]'
`
	pol := writeFile(t, "policy.yaml", "apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\nevictable: {barePods: true}\n"+
		"strategies:\n  LowNodeUtilization:\n    thresholds: {cpu: 20}\n    targetThresholds: {cpu: 50}\n"+
		"    metricsUtilization: {source: KubernetesMetrics, consecutiveObservations: 3}\n")
	for _, tt := range []struct {
		name      string
		dump      string
		wantMoves int
		wantNote  string
	}{
		{name: "with the state", dump: dump + state, wantMoves: 2},
		{name: "without", dump: dump, wantNote: "hot: over-utilized in 1 of 3 consecutive observations: not treated as over-utilized yet"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, code, err := execute(t, "plan", "--snapshot", writeFile(t, "dump.yaml", tt.dump), "--policy", pol, "--now", "2026-11-20T12:00:00Z", "-o", "json")
			if code != exitOK {
				t.Fatal(err)
			}
			var doc struct {
				Moves []struct{ Pod string }
				Notes []struct{ Node, Text string }
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Moves) != tt.wantMoves {
				t.Errorf("%d moves, want %d: %s", len(doc.Moves), tt.wantMoves, out)
			}
			var notes []string
			for _, n := range doc.Notes {
				notes = append(notes, n.Node+": "+n.Text)
			}
			if tt.wantNote != "" && !slices.Contains(notes, tt.wantNote) {
				t.Errorf("notes %q, want %q among them", notes, tt.wantNote)
			}
		})
	}
}

// plan reads the policy's disruption windows at --now: the report says
// what a run then would do, and the plan applies the limits of the windows
// open then.
func TestPlanReadsTheDisruptionWindowsAtNow(t *testing.T) {
	pol := writeFile(t, "policy.yaml", `apiVersion: rebalancer.dev/v1alpha1
kind: RebalancePolicy
limits: {total: 50}
strategies:
  RemoveDuplicates: {}
  LowNodeUtilization: {thresholds: {cpu: 20, memory: 20, pods: 20}, targetThresholds: {cpu: 50, memory: 50, pods: 50}}
disruptionWindows:
- {schedule: "0 22 * * 1-5", duration: 8h, timeZone: Europe/Berlin, limits: {total: 1}}
`)
	tests := []struct {
		now       string
		wantEvict bool
		wantMoves int // -1: more than one
		wantNote  string
	}{
		{now: "2026-11-20T12:00:00Z", wantMoves: -1,
			wantNote: "outside every disruption window: next opens 2026-11-20T22:00:00+01:00 (disruptionWindows[0])"},
		{now: "2026-11-20T22:30:00Z", wantEvict: true, wantMoves: 1,
			wantNote: "inside disruptionWindows[0], open since 2026-11-20T22:00:00+01:00 for 8h0m0s: its limits apply"},
	}
	for _, tt := range tests {
		t.Run(tt.now, func(t *testing.T) {
			out, code, err := execute(t, "plan", "--snapshot", example, "--policy", pol, "--now", tt.now, "-o", "json")
			if code != exitOK {
				t.Fatal(err)
			}
			var doc struct {
				Moves   []struct{ Pod string }
				Windows struct {
					At    string
					Evict bool
					Note  string
				} `json:"disruptionWindows"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Windows.At != tt.now || doc.Windows.Evict != tt.wantEvict || doc.Windows.Note != tt.wantNote {
				t.Errorf("disruptionWindows = %+v, want at %s, evict %v, note %q", doc.Windows, tt.now, tt.wantEvict, tt.wantNote)
			}
			if got := len(doc.Moves); tt.wantMoves < 0 && got < 2 || tt.wantMoves >= 0 && got != tt.wantMoves {
				t.Errorf("%d moves, want %d (-1: more than one)", got, tt.wantMoves)
			}
		})
	}
}
