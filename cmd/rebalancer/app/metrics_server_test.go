package app

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kube-rebalancer/rebalancer/report"
	"github.com/kube-rebalancer/rebalancer/schedulerd"
)

// Both long-running processes serve their own metrics and a health check
// on --metrics-addr, as the chart's values say.
func TestMetricsHandler(t *testing.T) {
	tests := []struct {
		name     string
		handler  http.Handler
		path     string
		wantBody string
	}{
		{"run: the cycles' metrics", metricsHandler(report.NewMetrics().Registry), "/metrics", "rebalancer_cycle_duration_seconds"},
		{"schedule: the scheduler's metrics", metricsHandler(schedulerd.NewMetrics().Registry), "/metrics", "rebalancer_scheduler_binding_duration_seconds"},
		{"schedule: the Go runtime's", metricsHandler(schedulerd.NewMetrics().Registry), "/metrics", "go_goroutines"},
		{"health", metricsHandler(schedulerd.NewMetrics().Registry), "/healthz", "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			resp, err := http.Get(srv.URL + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), tt.wantBody) {
				t.Errorf("GET %s: %d, body without %q:\n%.400s", tt.path, resp.StatusCode, tt.wantBody, body)
			}
		})
	}
}
