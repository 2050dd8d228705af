package e2e

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// usageNodeSet is the node set whose nodes metrics-server scrapes.
const usageNodeSet = "usage"

var (
	metricsServerOnce sync.Once
	metricsServerErr  error
)

// sharedMetricsServer runs metrics-server on the shared control plane, for
// the nodes of usageNodeSet, built and started by the first test that
// needs it.
func sharedMetricsServer(t *testing.T, cp *harness.ControlPlane) {
	t.Helper()
	metricsServerOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		defer cancel()
		metricsServerErr = cp.StartMetricsServer(ctx, harness.NodeSetLabel+"="+usageNodeSet)
	})
	if metricsServerErr != nil {
		t.Fatalf("starting metrics-server: %v", metricsServerErr)
	}
}

// usingCPU makes a workload's pods use cpu, as kwok reports it.
func usingCPU(cpu string) func(*corev1.PodTemplateSpec) {
	return func(tmpl *corev1.PodTemplateSpec) {
		if tmpl.Annotations == nil {
			tmpl.Annotations = map[string]string{}
		}
		tmpl.Annotations[harness.UsageCPUAnnotation] = cpu
	}
}

// waitForUsage waits until metrics-server, through kube-apiserver, has a
// sample of every node and of every pod the test counts.
func waitForUsage(t *testing.T, cp *harness.ControlPlane, ns string, nodes []string, pods int) (map[string]cluster.NodeMetrics, []cluster.PodMetrics) {
	t.Helper()
	rc := cp.Client.Discovery().RESTClient()
	var byNode map[string]cluster.NodeMetrics
	var podList cluster.PodMetricsList
	var last []byte
	err := harness.WaitFor(t.Context(), 2*time.Minute, "metrics-server's samples of the fixture", func(ctx context.Context) (bool, error) {
		raw, err := rc.Get().AbsPath("/apis/metrics.k8s.io/v1beta1/nodes").DoRaw(ctx)
		last = raw
		if err != nil {
			return false, nil
		}
		var list cluster.NodeMetricsList
		if err := json.Unmarshal(raw, &list); err != nil {
			return false, err
		}
		byNode = map[string]cluster.NodeMetrics{}
		for _, m := range list.Items {
			byNode[m.Name] = m
		}
		for _, n := range nodes {
			if _, ok := byNode[n]; !ok {
				return false, nil
			}
		}
		raw, err = rc.Get().AbsPath("/apis/metrics.k8s.io/v1beta1/namespaces/" + ns + "/pods").DoRaw(ctx)
		if err != nil {
			return false, nil
		}
		if err := json.Unmarshal(raw, &podList); err != nil {
			return false, err
		}
		return len(podList.Items) >= pods, nil
	})
	if err != nil {
		t.Fatalf("%v; metrics.k8s.io's last answer for the nodes:\n%s", err, last)
	}
	return byNode, podList.Items
}

// usagePiles runs pods on three 4-CPU nodes: hot's request 20% of its cpu
// and use 75%; busy's request 70% and use 35%; idle's one pod requests and
// uses 2.5%. By requests busy is over its target and hot under its
// threshold: the opposite plan. (kwok reports no cpu for a node without
// pods, and metrics-server then has no sample of it: idle needs one.)
func usagePiles(f *fixture, hot, busy, idle string) {
	f.t.Helper()
	f.pile(harness.WorkloadSpec{Name: "web", Replicas: 2, CPU: "400m", PodTemplate: usingCPU("1500m")}, hot)
	f.pile(harness.WorkloadSpec{Name: "api", Replicas: 7, CPU: "400m", PodTemplate: usingCPU("200m")}, busy)
	f.pile(harness.WorkloadSpec{Name: "tiny", Replicas: 1, CPU: "100m", PodTemplate: usingCPU("100m")}, idle)
}

// Issue 18, proven with the real components: metrics-server scrapes kwok's
// emulated kubelets, kube-apiserver serves its samples as metrics.k8s.io,
// and `rebalancer run` with metricsUtilization relieves the node that is hot
// by usage, not the one that is busy by requests.
func TestMetricsServerUsageRelievesTheHotNode(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, usageNodeSet, 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	hot, busy, idle := f.nodes[0], f.nodes[1], f.nodes[2]
	sharedMetricsServer(t, cp)

	usagePiles(f, hot, busy, idle)

	nodeUsage, _ := waitForUsage(t, cp, f.ns, f.nodes, 10)
	for node, want := range map[string]int64{hot: 3000, busy: 1400, idle: 100} {
		got := cpuOf(nodeUsage[node])
		if got < want-100 || got > want+100 {
			t.Errorf("metrics-server says %s uses %dm cpu, want about %dm (what kwok reports for its pods)", node, got, want)
		}
	}

	pol := f.policy(`strategies:
  LowNodeUtilization:
    thresholds: {cpu: 20}
    targetThresholds: {cpu: 50}
    metricsUtilization: {source: KubernetesMetrics}
`)
	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", f.ns+"/rebalancer-state", "-o", "json")
	if r.code != 0 {
		t.Fatalf("run exited %d, want 0\n%s", r.code, r.stderr)
	}
	rep := decode(t, r)
	if rep.Usage == nil || rep.Usage.Error != "" || rep.Usage.Nodes != 3 {
		t.Fatalf("the report's usage is %+v; want 3 nodes measured through metrics.k8s.io and no error\n%s", rep.Usage, r.stderr)
	}
	// One of hot's pods (1.5 CPU) takes it from 75% to 37.5%, within its
	// target: one move, to idle.
	if len(rep.Moves) != 1 {
		t.Fatalf("%d moves, want 1: %+v", len(rep.Moves), rep.Moves)
	}
	m := rep.Moves[0]
	if m.From != hot || m.To != idle || m.Result != evictor.Evicted {
		t.Errorf("move %s %s→%s (%s), want one of hot's pods evicted, %s→%s", m.Pod, m.From, m.To, m.Result, hot, idle)
	}
	for _, n := range rep.Nodes {
		if n.Name == hot {
			if before, after := n.UsageBefore["cpu"], n.UsageAfter["cpu"]; before < 70 || after > 50 {
				t.Errorf("the report has %s's cpu usage %v%% → %v%%, want about 75%% → 37.5%%", hot, before, after)
			}
		}
	}
	t.Logf("metrics-server samples: %s %dm, %s %dm, %s %dm",
		hot, cpuOf(nodeUsage[hot]), busy, cpuOf(nodeUsage[busy]), idle, cpuOf(nodeUsage[idle]))
}

func cpuOf(m cluster.NodeMetrics) int64 {
	q := m.Usage[corev1.ResourceCPU]
	return q.MilliValue()
}
