package app

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A run that fails, before or after reaching the cluster, still writes and
// pushes its metrics saying so: a CronJob that fails every tick must not
// look like one with nothing to do.
func TestFailedRunsPublishTheirMetrics(t *testing.T) {
	badPolicy := writeFile(t, "policy.yaml", "apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\nstrategies:\n  LowNodeUtilization:\n    thresholds: {cpu: 20}\n    targetThresholds: {cpu: 120}\n")
	noCluster := writeFile(t, "kubeconfig", "apiVersion: v1\nkind: Config\n")
	// Nothing listens on port 1: the API server is unreachable.
	unreachable := writeFile(t, "unreachable", `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`)
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"invalid policy", []string{"--policy", badPolicy, "--kubeconfig", noCluster}, exitUsage},
		{"invalid policy, cluster reachable or not", []string{"--policy", badPolicy, "--kubeconfig", unreachable}, exitUsage},
		{"no cluster configured", []string{"--kubeconfig", noCluster}, exitUsage},
		{"API server unreachable", []string{"--kubeconfig", unreachable}, exitRuntime},
		{"bad output format", []string{"--kubeconfig", unreachable, "-o", "xml"}, exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var (
				mu     sync.Mutex
				pushed string
			)
			gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				pushed = r.Method + " " + r.URL.Path + "\n" + string(body)
				mu.Unlock()
			}))
			defer gw.Close()
			file := filepath.Join(t.TempDir(), "rebalancer.prom")
			// --no-state: these runs fail for their own reasons, not for want of a state.
			args := append([]string{"run", "--no-state", "--metrics-file", file, "--pushgateway", gw.URL, "--pushgateway-instance", "prod-eu-1"}, tt.args...)
			_, code, err := execute(t, args...)
			if code != tt.code {
				t.Fatalf("exit code %d (%v), want %d", code, err, tt.code)
			}
			prom, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("no metrics file: %v", err)
			}
			for _, want := range []string{"rebalancer_last_cycle_success 0", "rebalancer_last_cycle_timestamp_seconds "} {
				if !strings.Contains(string(prom), want) {
					t.Errorf("metrics file lacks %q:\n%s", want, prom)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if !strings.HasPrefix(pushed, "PUT /metrics/job/rebalancer/instance/prod-eu-1\n") || !strings.Contains(pushed, "rebalancer_last_cycle_success") {
				t.Errorf("pushed %q, want the run's metrics", pushed)
			}
		})
	}
}
