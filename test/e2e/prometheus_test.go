package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// nodeCPUQuery rates each node's cpu between 0 and 1, labelled with the
// node's name as instance: the kwok-emulated kubelet counter over the last
// 10 seconds, of the fixture's 4-CPU nodes.
const nodeCPUQuery = `sum by (instance) (rate(node_cpu_usage_seconds_total[10s])) / 4`

// startPrometheus runs Prometheus, installed by
// test/tools/prometheus/install.sh, scraping every 2 seconds the resource
// metrics kwok serves for each node, with the node's name as instance, until
// the test ends; it returns its URL.
func startPrometheus(t *testing.T, cp *harness.ControlPlane, nodes []string) string {
	t.Helper()
	ctx := t.Context()
	var config strings.Builder
	config.WriteString("global: {scrape_interval: 2s, scrape_timeout: 1s}\nscrape_configs:\n")
	for _, name := range nodes {
		node, err := cp.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// Where metrics-server would scrape: the node's address, its
		// kubelet port, and the path its annotation names.
		fmt.Fprintf(&config, "- job_name: %s\n  metrics_path: %s\n  static_configs:\n  - targets: ['%s:%d']\n    labels: {instance: %s}\n",
			name, node.Annotations["metrics.k8s.io/resource-metrics-path"], node.Status.Addresses[0].Address,
			node.Status.DaemonEndpoints.KubeletEndpoint.Port, name)
	}
	configPath := writeFile(t, "prometheus.yml", config.String())
	data := filepath.Join(t.TempDir(), "data")
	addr := startDebianTool(t, "prometheus", "Prometheus", func(addr string) []string {
		return []string{"--config.file=" + configPath, "--storage.tsdb.path=" + data, "--web.listen-address=" + addr, "--log.level=warn"}
	})
	return "http://" + addr
}

// queryVector runs an instant query and returns each sample's value by its
// instance label.
func queryVector(ctx context.Context, server, query string) (map[string]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, server+"/api/v1/query?query="+url.QueryEscape(query), nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var answer struct {
		Data struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, r := range answer.Data.Result {
		v, _ := r.Value[1].(string)
		out[r.Metric["instance"]] = v
	}
	return out, nil
}

// Issue 18 with Prometheus: it scrapes the same emulated kubelets, and
// `rebalancer run` with metricsUtilization source Prometheus, asking it the
// query that rates each node, relieves the node the query rates hot, not
// the one busy by requests.
func TestPrometheusQueryRelievesTheHotNode(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, "prom", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	hot, busy, idle := f.nodes[0], f.nodes[1], f.nodes[2]
	usagePiles(f, hot, busy, idle)
	server := startPrometheus(t, cp, f.nodes)

	// The first rates, over the pods' first seconds, run low: wait until
	// each node is rated what its pods use.
	want := map[string]float64{hot: 0.75, busy: 0.35, idle: 0.025}
	var ratings map[string]string
	err := harness.WaitFor(t.Context(), 2*time.Minute, "Prometheus to rate the fixture's nodes by their pods' usage", func(ctx context.Context) (bool, error) {
		var err error
		if ratings, err = queryVector(ctx, server, nodeCPUQuery); err != nil {
			return false, nil
		}
		for node, w := range want {
			v, err := strconv.ParseFloat(ratings[node], 64)
			if err != nil || math.Abs(v-w) > 0.05 {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("%v (last answer: %v)", err, ratings)
	}
	t.Logf("Prometheus rates %s %s, %s %s, %s %s", hot, ratings[hot], busy, ratings[busy], idle, ratings[idle])

	pol := f.policy(fmt.Sprintf(`metricsProviders:
- source: Prometheus
  prometheus: {url: %q}
strategies:
  LowNodeUtilization:
    thresholds: {MetricResource: 20}
    targetThresholds: {MetricResource: 50}
    metricsUtilization:
      source: Prometheus
      prometheus: {query: %q}
`, server, nodeCPUQuery))
	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", f.ns+"/rebalancer-state", "-o", "json")
	if r.code != 0 {
		t.Fatalf("run exited %d, want 0\n%s", r.code, r.stderr)
	}
	rep := decode(t, r)
	if rep.Usage == nil || rep.Usage.Error != "" || rep.Usage.Nodes != 3 {
		t.Fatalf("the report's usage is %+v; want 3 nodes rated by Prometheus and no error\n%s", rep.Usage, r.stderr)
	}
	// A query rates nodes, not pods: one pod leaves hot this cycle, to the
	// node rated lowest.
	if len(rep.Moves) != 1 {
		t.Fatalf("%d moves, want 1: %+v", len(rep.Moves), rep.Moves)
	}
	if m := rep.Moves[0]; m.From != hot || m.To != idle || m.Result != evictor.Evicted {
		t.Errorf("move %s %s→%s (%s), want one of hot's pods evicted, %s→%s", m.Pod, m.From, m.To, m.Result, hot, idle)
	}
}
