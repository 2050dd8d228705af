package policy

import (
	"strings"
	"testing"
)

// metricsUtilization and metricsProviders are checked as the descheduler
// checks them, each problem named by its path.
func TestLoadValidatesMetricsUtilization(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string // nil: the policy loads
	}{
		{
			name: "metrics-server by its source",
			yaml: "strategies:\n  LowNodeUtilization:\n    thresholds: {cpu: 20}\n    targetThresholds: {cpu: 50}\n    metricsUtilization: {source: KubernetesMetrics}\n",
		},
		{
			name: "metrics-server by the older metricsServer: true",
			yaml: "strategies:\n  HighNodeUtilization:\n    thresholds: {cpu: 20}\n    metricsUtilization: {metricsServer: true}\n",
		},
		{
			name: "Prometheus with its server and MetricResource thresholds",
			yaml: "metricsProviders:\n- source: Prometheus\n  prometheus: {url: 'http://prometheus:9090'}\nstrategies:\n  LowNodeUtilization:\n    thresholds: {MetricResource: 30}\n    targetThresholds: {MetricResource: 70}\n    metricsUtilization: {source: Prometheus, prometheus: {query: 'instance:node_cpu:rate:sum'}}\n",
		},
		{
			name: "both spellings of metrics-server, and a query without Prometheus",
			yaml: "strategies:\n  LowNodeUtilization:\n    thresholds: {cpu: 20}\n    targetThresholds: {cpu: 50}\n    metricsUtilization: {source: KubernetesMetrics, metricsServer: true, prometheus: {query: up}}\n",
			want: []string{
				"strategies.LowNodeUtilization.metricsUtilization.metricsServer: is the older spelling of source: KubernetesMetrics; set one of them",
				"strategies.LowNodeUtilization.metricsUtilization.prometheus: is only for source: Prometheus",
			},
		},
		{
			name: "Prometheus needs a query, thresholds on its value and a server",
			yaml: "strategies:\n  LowNodeUtilization:\n    thresholds: {cpu: 20}\n    targetThresholds: {cpu: 50}\n    metricsUtilization: {source: Prometheus}\n",
			want: []string{
				"strategies.LowNodeUtilization.metricsUtilization.prometheus.query: is required (a PromQL query returning one sample per node (label instance: the node's name) between 0 and 1)",
			},
		},
		{
			name: "Prometheus thresholds name MetricResource only, and the server must be listed",
			yaml: "strategies:\n  LowNodeUtilization:\n    thresholds: {cpu: 20}\n    targetThresholds: {cpu: 50}\n    metricsUtilization: {source: Prometheus, prometheus: {query: up}}\n",
			want: []string{
				"strategies.LowNodeUtilization.thresholds.cpu: 20 is set, but with metricsUtilization.source Prometheus thresholds list MetricResource only (the query's value, in percent)",
				"strategies.LowNodeUtilization.targetThresholds.cpu: 50 is set, but with metricsUtilization.source Prometheus thresholds list MetricResource only (the query's value, in percent)",
				"metricsProviders: is required (strategies.LowNodeUtilization.metricsUtilization asks Prometheus: list {source: Prometheus, prometheus: {url: …}})",
			},
		},
		{
			name: "MetricResource without Prometheus, and an unknown source",
			yaml: "strategies:\n  HighNodeUtilization:\n    thresholds: {MetricResource: 20}\n    metricsUtilization: {source: Graphite}\n",
			want: []string{
				`strategies.HighNodeUtilization.metricsUtilization.source: "Graphite" is not supported; supported values: "KubernetesMetrics", "Prometheus"`,
				"strategies.HighNodeUtilization.thresholds.MetricResource: 20 is set, but MetricResource is the value of a Prometheus query: set it only with metricsUtilization.source Prometheus",
			},
		},
		{
			name: "a node counts as over-utilized after three observations in a row",
			yaml: "strategies:\n  LowNodeUtilization:\n    thresholds: {cpu: 20}\n    targetThresholds: {cpu: 50}\n    metricsUtilization: {source: KubernetesMetrics, consecutiveObservations: 3}\n",
		},
		{
			name: "no fewer than one observation",
			yaml: "strategies:\n  HighNodeUtilization:\n    thresholds: {cpu: 20}\n    metricsUtilization: {metricsServer: true, consecutiveObservations: 0}\n",
			want: []string{
				"strategies.HighNodeUtilization.metricsUtilization.consecutiveObservations: 0 must be at least 1 (1: each run judges a node on its latest sample alone)",
			},
		},
		{
			name: "a Prometheus server's url, token and TLS",
			yaml: "metricsProviders:\n- source: Prometheus\n  prometheus:\n    url: prometheus:9090\n    authToken: {secretReference: {name: t}, file: /t}\n    tls: {caFile: /ca.crt, insecureSkipVerify: true}\n- source: Prometheus\n  prometheus: {url: 'https://p', authToken: {secretReference: {namespace: kube-system}}}\n",
			want: []string{
				`metricsProviders[0].prometheus.url: "prometheus:9090" is not an http or https URL`,
				"metricsProviders[0].prometheus.authToken: set secretReference or file, not both",
				"metricsProviders[0].prometheus.tls: set caFile or insecureSkipVerify, not both",
				"metricsProviders[1].prometheus.authToken.secretReference.name: is required",
				`metricsProviders[1].source: "Prometheus" is listed twice`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load([]byte(header+tt.yaml), "policy.yaml")
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Load() error = %v, want none", err)
				}
				return
			}
			want := make([]string, len(tt.want))
			for i, w := range tt.want {
				want[i] = "policy.yaml: " + w
			}
			if err == nil || err.Error() != strings.Join(want, "\n") {
				t.Errorf("Load() error:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
			}
		})
	}
}
