package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/report"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// A CronJob's runs push to a real Pushgateway, and each push replaces the
// last: a run that succeeds says so, one refused for its policy says it
// failed and still carries the time of the last success (from the last-run
// record in the state ConfigMap), and one that cannot reach the API server
// says it failed without claiming a success it cannot know of.
func TestRunsPushTheirOutcomeToAPushgateway(t *testing.T) {
	cp := sharedControlPlane(t)
	gw := startPushgateway(t)
	f := newFixture(t, cp, "pushed", 2, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	state := f.ns + "/rebalancer-state"
	run := func(policy, kubeconfig string) *result {
		return rebalancer(t, "run", "--kubeconfig", kubeconfig, "--policy", policy, "--state-configmap", state,
			"--pushgateway", gw, "--pushgateway-instance", "e2e-cluster", "-o", "json")
	}

	// Nothing to move: a run that succeeds and evicts nothing.
	ok := run(f.policy(balancing), cp.Kubeconfig)
	if ok.code != 0 {
		t.Fatalf("exit code %d, want 0", ok.code)
	}
	first := lastRunRecord(t, cp, f.ns)
	pushed := scrape(t, gw)
	wantSample(t, pushed, "rebalancer_last_cycle_success", 1)
	wantSample(t, pushed, "rebalancer_last_cycle_dry_run", 0)
	wantSample(t, pushed, "rebalancer_last_success_timestamp_seconds", unix(*first.LastSuccess))
	wantSample(t, pushed, "rebalancer_last_cycle_timestamp_seconds", unix(first.End))
	// The binary is built without -ldflags: what `rebalancer version` prints.
	wantBuildInfo(t, gw, `version="dev"`, `revision="unknown"`, `goversion="`+runtime.Version()+`"`)

	// The policy is then broken: exit 2, and the push says so.
	invalid := f.policy(strings.Replace(balancing, "targetThresholds: {cpu: 50", "targetThresholds: {cpu: 120", 1))
	if r := run(invalid, cp.Kubeconfig); r.code != 2 {
		t.Fatalf("exit code %d, want 2", r.code)
	}
	second := lastRunRecord(t, cp, f.ns)
	if second.Succeeded || !strings.Contains(second.Error, "120") {
		t.Errorf("last-run record = %+v, want the failure and its reason", second)
	}
	pushed = scrape(t, gw)
	wantSample(t, pushed, "rebalancer_last_cycle_success", 0)
	wantSample(t, pushed, "rebalancer_last_success_timestamp_seconds", unix(*first.LastSuccess))
	wantSample(t, pushed, "rebalancer_last_cycle_timestamp_seconds", unix(second.End))

	// The API server cannot be reached: exit 1, a failure pushed, and no
	// last success, which only the unreachable record knew.
	unreachable := writeFile(t, "kubeconfig", `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`)
	if r := run(f.policy(balancing), unreachable); r.code != 1 {
		t.Fatalf("exit code %d, want 1", r.code)
	}
	pushed = scrape(t, gw)
	wantSample(t, pushed, "rebalancer_last_cycle_success", 0)
	if v, ok := pushed["rebalancer_last_success_timestamp_seconds"]; ok {
		t.Errorf("the unreachable run pushed a last success (%v) it cannot know", v)
	}
}

// startPushgateway runs a Pushgateway, installed by
// test/tools/pushgateway/install.sh, on a free local port until the test
// ends, and returns its URL.
func startPushgateway(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	addr := startDebianTool(t, "pushgateway", "Pushgateway", func(addr string) []string {
		return []string{"--web.listen-address=" + addr}
	})
	url := "http://" + addr
	err := harness.WaitFor(ctx, time.Minute, "the Pushgateway to be ready", func(ctx context.Context) (bool, error) {
		resp, err := http.Get(url + "/-/ready")
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return url
}

// scrape reads what the Pushgateway exposes of job "rebalancer", one value
// per metric name, and fails the test when a name has more than one series:
// runs must replace each other, not pile up.
func scrape(t *testing.T, gw string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(gw + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	samples := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "rebalancer_last_") {
			continue
		}
		series, value, _ := strings.Cut(line, " ")
		name, labels, _ := strings.Cut(series, "{")
		if !strings.Contains(labels, `job="rebalancer"`) || !strings.Contains(labels, `instance="e2e-cluster"`) {
			t.Errorf("%s is not grouped under job rebalancer and instance e2e-cluster", series)
		}
		if name == "rebalancer_last_cycle_evictions" || name == "rebalancer_last_cycle_steps" || name == "rebalancer_last_cycle_events_lost" {
			continue // one series per result, per state, per reason
		}
		if _, dup := samples[name]; dup {
			t.Errorf("the Pushgateway holds %s more than once: runs did not replace each other", name)
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		samples[name] = v
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return samples
}

// wantBuildInfo checks that the Pushgateway holds one
// rebalancer_build_info, 1, with the labels.
func wantBuildInfo(t *testing.T, gw string, labels ...string) {
	t.Helper()
	resp, err := http.Get(gw + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "rebalancer_build_info{") {
			found = append(found, line)
		}
	}
	if len(found) != 1 {
		t.Fatalf("the Pushgateway holds %d rebalancer_build_info series, want 1: %q", len(found), found)
	}
	for _, l := range labels {
		if !strings.Contains(found[0], l) {
			t.Errorf("%s lacks %s", found[0], l)
		}
	}
	if !strings.HasSuffix(found[0], "} 1") {
		t.Errorf("%s: want the value 1", found[0])
	}
}

func wantSample(t *testing.T, samples map[string]float64, name string, want float64) {
	t.Helper()
	got, ok := samples[name]
	switch {
	case !ok:
		t.Errorf("the Pushgateway has no %s", name)
	case got != want:
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}

func unix(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

func lastRunRecord(t *testing.T, cp *harness.ControlPlane, ns string) report.RunRecord {
	t.Helper()
	cm, err := cp.Client.CoreV1().ConfigMaps(ns).Get(t.Context(), "rebalancer-state", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var r report.RunRecord
	if err := json.Unmarshal([]byte(cm.Data[kube.RunRecordKey]), &r); err != nil || r.LastSuccess == nil && r.Succeeded {
		t.Fatalf("last-run record %q: %v", cm.Data[kube.RunRecordKey], err)
	}
	return r
}

func exitStderr(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return fmt.Sprint(err)
}
