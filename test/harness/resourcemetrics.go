package harness

import (
	"fmt"
	"os"
	"path/filepath"
)

// Pod annotations that set what a pod uses, as kwok's resource metrics
// report it: a quantity each ("1500m", "2Gi"). A pod without them uses 1m
// of cpu and 1Mi of memory.
const (
	UsageCPUAnnotation    = "kwok.x-k8s.io/usage-cpu"
	UsageMemoryAnnotation = "kwok.x-k8s.io/usage-memory"
)

// resourceMetricsPathAnnotation tells metrics-server (0.7 and later) where a
// node's resource metrics are, when not at the kubelet's /metrics/resource.
const resourceMetricsPathAnnotation = "metrics.k8s.io/resource-metrics-path"

// resourceMetricsPath is where kwok serves a node's resource metrics.
func resourceMetricsPath(node string) string {
	return "/metrics/nodes/" + node + "/metrics/resource"
}

// kwokResourceMetrics writes the kwok configuration that serves each node's
// resource metrics under the names and types a kubelet's /metrics/resource
// uses, which metrics-server reads: cpu as a counter of core-seconds (kwok
// integrates the pods' usage over time), memory as a working set gauge. It
// returns the extra kwok flags: the configuration, and the address and port
// kwok gives its nodes, so that metrics-server, scraping a node's
// InternalIP at its kubelet port, reaches kwok.
func (cp *ControlPlane) kwokResourceMetrics() ([]string, error) {
	config := filepath.Join(cp.Dir, "kwok-resource-metrics.yaml")
	podLabels := `
    labels:
    - {name: namespace, value: pod.metadata.namespace}
    - {name: pod, value: pod.metadata.name}`
	containerLabels := podLabels + `
    - {name: container, value: container.name}`
	doc := `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Metric
metadata: {name: resource-metrics}
spec:
  path: "` + resourceMetricsPath("{nodeName}") + `"
  metrics:
  - name: scrape_error
    help: 1 if there was an error while getting container metrics, 0 otherwise
    kind: gauge
    dimension: node
    value: "0"
  - name: node_cpu_usage_seconds_total
    help: Cumulative cpu time consumed by the node in core-seconds
    kind: counter
    dimension: node
    value: node.CumulativeUsage("cpu")
  - name: node_memory_working_set_bytes
    help: Current working set of the node in bytes
    kind: gauge
    dimension: node
    value: node.Usage("memory")
  - name: container_start_time_seconds
    help: Start time of the container since unix epoch in seconds
    kind: gauge
    dimension: container` + containerLabels + `
    value: pod.SinceSecond()
  - name: container_cpu_usage_seconds_total
    help: Cumulative cpu time consumed by the container in core-seconds
    kind: counter
    dimension: container` + containerLabels + `
    value: pod.CumulativeUsage("cpu", container.name)
  - name: container_memory_working_set_bytes
    help: Current working set of the container in bytes
    kind: gauge
    dimension: container` + containerLabels + `
    value: pod.Usage("memory", container.name)
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterResourceUsage
metadata: {name: usage-from-annotations}
spec:
  usages:
  - usage:
      cpu:
        expression: '"` + UsageCPUAnnotation + `" in pod.metadata.annotations ? Quantity(pod.metadata.annotations["` + UsageCPUAnnotation + `"]) : Quantity("1m")'
      memory:
        expression: '"` + UsageMemoryAnnotation + `" in pod.metadata.annotations ? Quantity(pod.metadata.annotations["` + UsageMemoryAnnotation + `"]) : Quantity("1Mi")'
`
	if err := os.WriteFile(config, []byte(doc), 0o600); err != nil {
		return nil, err
	}
	return []string{
		"--config=" + config,
		"--node-ip=127.0.0.1",
		fmt.Sprintf("--node-port=%d", cp.ports.kwok),
	}, nil
}
