package cluster

import (
	"strings"
	"testing"
	"time"
)

// The dump's nodes and pods the usage samples below are about.
const usageCluster = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: node-a}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: node-b}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Pod
  metadata: {namespace: shop, name: web-0}
  spec: {nodeName: node-a, containers: [{name: app, image: web, resources: {requests: {cpu: 100m}}}]}
  status: {phase: Running}
`

// What `kubectl get --raw /apis/metrics.k8s.io/v1beta1/nodes` prints: the
// list's items carry no kind, and window is a duration string.
const rawNodeMetricsList = `{"kind":"NodeMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[
{"metadata":{"name":"node-a","creationTimestamp":"2026-11-20T12:00:05Z"},"timestamp":"2026-11-20T11:59:50Z","window":"20.039s","usage":{"cpu":"3200m","memory":"6Gi"}},
{"metadata":{"name":"node-b"},"timestamp":"2026-11-20T12:00:00Z","window":"15s","usage":{"cpu":"250000000n","memory":"1048576Ki"}}]}
`

// What `.../pods` prints: a pod's containers are added up.
const rawPodMetricsList = `{"kind":"PodMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[
{"metadata":{"name":"web-0","namespace":"shop"},"timestamp":"2026-11-20T11:59:50Z","window":"15s",
 "containers":[{"name":"app","usage":{"cpu":"900m","memory":"1Gi"}},{"name":"sidecar","usage":{"cpu":"100m","memory":"512Mi"}}]}]}
`

// kubectl get nodemetrics,podmetrics -o yaml: typed items in a List.
const nodeAndPodMetricsItems = `apiVersion: v1
kind: List
items:
- apiVersion: metrics.k8s.io/v1beta1
  kind: NodeMetrics
  metadata: {name: node-a}
  timestamp: "2026-11-20T11:59:50Z"
  window: 20.039s
  usage: {cpu: 3200m, memory: 6Gi}
- apiVersion: metrics.k8s.io/v1beta1
  kind: NodeMetrics
  metadata: {name: node-b}
  timestamp: "2026-11-20T12:00:00Z"
  window: 15s
  usage: {cpu: 250m, memory: 1Gi}
- apiVersion: metrics.k8s.io/v1beta1
  kind: PodMetrics
  metadata: {name: web-0, namespace: shop}
  timestamp: "2026-11-20T11:59:50Z"
  window: 15s
  containers:
  - {name: app, usage: {cpu: 900m, memory: 1Gi}}
  - {name: sidecar, usage: {cpu: 100m, memory: 512Mi}}
`

func decodeUsageDump(t *testing.T, docs ...string) *Snapshot {
	t.Helper()
	objs, _, err := Decode(strings.NewReader(strings.Join(append([]string{usageCluster}, docs...), "---\n")))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(objs, time.Date(2026, 11, 20, 12, 1, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A dump's metrics.k8s.io samples reach the nodes and pods they name,
// whether the dump holds the API's raw lists or kubectl's typed items.
func TestDumpReadsMetricsAPISamples(t *testing.T) {
	for name, docs := range map[string][]string{
		"raw NodeMetricsList and PodMetricsList": {rawNodeMetricsList, rawPodMetricsList},
		"NodeMetrics and PodMetrics items":       {nodeAndPodMetricsItems},
	} {
		t.Run(name, func(t *testing.T) {
			s := decodeUsageDump(t, docs...)
			a, b := s.Node("node-a"), s.Node("node-b")
			if a.Usage == nil || b.Usage == nil {
				t.Fatalf("samples of node-a %v, node-b %v; want both", a.Usage, b.Usage)
			}
			if got := a.Usage.Usage; got.MilliCPU != 3200 || got.Memory != 6<<30 {
				t.Errorf("node-a uses %dm cpu, %d bytes; want 3200m, 6Gi", got.MilliCPU, got.Memory)
			}
			if got := b.Usage.Usage; got.MilliCPU != 250 || got.Memory != 1<<30 {
				t.Errorf("node-b uses %dm cpu, %d bytes; want 250m, 1Gi", got.MilliCPU, got.Memory)
			}
			if a.Usage.Window != 20039*time.Millisecond {
				t.Errorf("node-a's window is %v, want 20.039s", a.Usage.Window)
			}
			if got := a.UsedPercent("cpu"); got != 80 {
				t.Errorf("node-a uses %v%% of its cpu, want 80 (by usage, not its pods' 100m requests)", got)
			}
			pod := s.Pod("shop/web-0")
			if pod.Usage == nil {
				t.Fatal("shop/web-0 has no sample")
			}
			if got := pod.Usage.Usage; got.MilliCPU != 1000 || got.Memory != 1536<<20 {
				t.Errorf("shop/web-0 uses %dm cpu, %d bytes; want its containers' 1000m, 1.5Gi", got.MilliCPU, got.Memory)
			}
			// Staleness is judged against the newest sample: the dump's
			// moment, not the clock of the machine that reads it.
			if want := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC); !s.UsageAt().Equal(want) {
				t.Errorf("usage read at %v, want the newest sample's %v", s.UsageAt(), want)
			}
			if p := s.UsageProblem(a, false); p != "" {
				t.Errorf("node-a's sample, 10s older than node-b's, is refused: %s", p)
			}
		})
	}
}

// A dump may hold the answer of Prometheus' query API (curl
// .../api/v1/query) beside the objects: each sample rates the node its
// instance label names.
func TestDumpReadsAPrometheusAnswer(t *testing.T) {
	answer := `{"status":"success","data":{"resultType":"vector","result":[
{"metric":{"instance":"node-a"},"value":[1795176000,"0.83"]},
{"metric":{"instance":"node-b","job":"node"},"value":[1795175990.5,"0.2"]}]}}
`
	s := decodeUsageDump(t, answer)
	a, b := s.Node("node-a"), s.Node("node-b")
	if a.Score == nil || b.Score == nil {
		t.Fatalf("samples of node-a %v, node-b %v; want both", a.Score, b.Score)
	}
	if a.ScorePercent() != 83 || b.ScorePercent() != 20 {
		t.Errorf("node-a rated %v%%, node-b %v%%; want 83, 20", a.ScorePercent(), b.ScorePercent())
	}
	if want := time.Unix(1795175990, 5e8).UTC(); !b.Score.Timestamp.Time.Equal(want) {
		t.Errorf("node-b sampled at %v, want %v", b.Score.Timestamp.Time, want)
	}
	if a.Usage != nil {
		t.Error("a Prometheus rating gave node-a a metrics.k8s.io sample")
	}
}

// An answer that does not rate each node between 0 and 1 is refused, and
// says why: never read as a rating of 0.
func TestDumpRefusesPrometheusAnswersThatRateNoNode(t *testing.T) {
	tests := []struct {
		name, answer, want string
	}{
		{"a failed query", `{"status":"error","errorType":"bad_data","error":"parse error at char 5"}`, "bad_data: parse error"},
		{"a range query's matrix", `{"status":"success","data":{"resultType":"matrix","result":[]}}`, `"matrix", not a vector`},
		{"a sample without instance", `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"node":"node-a"},"value":[1795176000,"0.5"]}]}}`, "no instance label"},
		{"a percentage", `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"instance":"node-a"},"value":[1795176000,"83"]}]}}`, "outside of [0, 1]"},
		{"not a number", `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"instance":"node-a"},"value":[1795176000,"NaN"]}]}}`, "outside of [0, 1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Decode(strings.NewReader(usageCluster + "---\n" + tt.answer + "\n"))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}
