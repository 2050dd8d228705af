package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// TestExtenderPlacesEveryReplacementWherePlanned: a Deployment of the
// default scheduler crammed onto one node, a run that moves pods off it,
// and kube-scheduler, configured with `rebalancer extender`, placing the
// replacements. Every replacement lands on the node the plan chose for it:
// counted per node, all of them. The plan packs (its profile scores
// MostAllocated alone) where kube-scheduler on its own spreads
// (LeastAllocated and the default topology spread), so the count would not
// match without the extender.
// crammed is a control plane whose kube-scheduler calls `rebalancer
// extender`, running, with a Deployment web of the default scheduler
// crammed onto the first of four nodes.
type crammed struct {
	cp     *harness.ControlPlane
	f      *fixture
	web    harness.WorkloadSpec
	before map[string]corev1.Pod
	state  string
	ext    *daemon
}

func newCrammed(t *testing.T, name string, extenderArgs ...string) *crammed {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cp := ownControlPlane(t, harness.Options{Scheduler: true, SchedulerConfig: fmt.Sprintf(`extenders:
  - urlPrefix: "http://%s/"
    filterVerb: filter
    prioritizeVerb: prioritize
    weight: 5
    nodeCacheCapable: true
    ignorable: true
    httpTimeout: 5s
`, addr)})
	ctx := t.Context()
	f := newFixture(t, cp, name, 4, harness.NodeSpec{CPU: "4", Memory: "16Gi"})

	// Cram: every other node cordoned while the Deployment starts.
	setUnschedulable := func(on bool) {
		// A patch, as kubectl cordon sends: kwok keeps updating the nodes.
		patch := fmt.Appendf(nil, `{"spec":{"unschedulable":%v}}`, on)
		for _, n := range f.nodes[1:] {
			if _, err := cp.Client.CoreV1().Nodes().Patch(ctx, n, types.StrategicMergePatchType, patch, metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	setUnschedulable(true)
	web := harness.WorkloadSpec{Namespace: f.ns, Name: "web", Replicas: 8, CPU: "400m"}
	if _, err := cp.CreateDeployment(ctx, web); err != nil {
		t.Fatal(err)
	}
	if _, err := cp.WaitForPodsRunning(ctx, f.ns, web.Selector(), 8); err != nil {
		t.Fatal(err)
	}
	before := pods(t, cp, f.ns, web.Selector())
	for name, p := range before {
		if p.Spec.NodeName != f.nodes[0] {
			t.Fatalf("%s runs on %s; the test needs all on %s", name, p.Spec.NodeName, f.nodes[0])
		}
	}
	setUnschedulable(false)

	state := f.ns + "/rebalancer-state"
	ext := startRebalancer(t, append([]string{"extender", "--kubeconfig", cp.Kubeconfig, "--listen", addr, "--state-configmap", state, "-v", "2"},
		extenderArgs...)...)
	err = harness.WaitFor(ctx, time.Minute, "the extender to be ready", func(ctx context.Context) (bool, error) {
		if err := ext.exited(); err != nil {
			return false, err
		}
		resp, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Dashboards tell the extender's versions apart by its build info.
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), "rebalancer_build_info{") {
		t.Errorf("the extender's /metrics has no rebalancer_build_info:\n%s", body)
	}
	return &crammed{cp: cp, f: f, web: web, before: before, state: state, ext: ext}
}

func TestExtenderPlacesEveryReplacementWherePlanned(t *testing.T) {
	c := newCrammed(t, "steer")
	cp, f, web, before, state, ext := c.cp, c.f, c.web, c.before, c.state, c.ext
	ctx := t.Context()
	pol := f.policy(`limits: {total: 4}
scheduler:
  config:
    apiVersion: kubescheduler.config.k8s.io/v1
    kind: KubeSchedulerConfiguration
    profiles:
      - schedulerName: default-scheduler
        plugins:
          score:
            disabled: [{name: "*"}]
            enabled: [{name: NodeResourcesFit}]
        pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: MostAllocated
                resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
strategies:
  LowNodeUtilization:
    thresholds: {cpu: 20}
    targetThresholds: {cpu: 50}
`)
	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", state, "-o", "json")
	if r.code != 0 {
		t.Fatalf("run exited %d", r.code)
	}
	planned := map[string]int{}
	for _, m := range decode(t, r).Moves {
		if m.Result != evictor.Evicted {
			t.Fatalf("move of %s: %s (%s)", m.Pod, m.Result, m.Message)
		}
		planned[m.To]++
	}
	if len(planned) == 0 {
		t.Fatal("the run planned no move")
	}

	// The ReplicaSet controller replaces the evicted pods; kube-scheduler,
	// asking the extender, binds them.
	var landed map[string]int
	err := harness.WaitFor(ctx, 2*time.Minute, "every replacement bound", func(ctx context.Context) (bool, error) {
		landed = map[string]int{}
		n := 0
		for _, p := range pods(t, cp, f.ns, web.Selector()) {
			if _, old := before[p.Name]; old || p.DeletionTimestamp != nil {
				continue
			}
			if p.Spec.NodeName == "" {
				return false, nil
			}
			landed[p.Spec.NodeName]++
			n++
		}
		return n == sum(planned), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(sorted(landed)) != fmt.Sprint(sorted(planned)) {
		t.Errorf("replacements landed %v; the plan put them on %v", sorted(landed), sorted(planned))
	}
	if !strings.Contains(ext.stderr.String(), "Replacement steered to its planned node") {
		t.Errorf("the extender logged no steering")
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func sorted(m map[string]int) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s:%d", k, v))
	}
	sort.Strings(out)
	return out
}

// TestExtenderSteersNoPodBesideAnEvictionThatNeverHappened: a run killed
// between recording an eviction and making it leaves its intent in the
// state while the pod runs on under its UID. A new pod of the workload (a
// scale-up) is no replacement: kube-scheduler places it on its own. Once
// the recorded pod has left, its replacement is steered.
func TestExtenderSteersNoPodBesideAnEvictionThatNeverHappened(t *testing.T) {
	c := newCrammed(t, "unmade")
	cp, f, web, ext := c.cp, c.f, c.web, c.ext
	ctx := t.Context()
	var recorded corev1.Pod
	for _, p := range c.before {
		recorded = p
		break
	}
	// The intent names the crammed node: kube-scheduler, spreading, never
	// chooses it on its own while three nodes stand empty.
	body, _ := json.Marshal([]cluster.Eviction{{Pod: f.ns + "/" + recorded.Name, UID: recorded.UID,
		Workload: cluster.Workload{Kind: "Deployment", Namespace: f.ns, Name: web.Name}, From: f.nodes[0], To: f.nodes[0],
		Strategy: "LowNodeUtilization", At: time.Now().UTC()}})
	writeState(t, cp, f.ns, map[string]string{"evictions.json": string(body)})
	err := harness.WaitFor(ctx, time.Minute, "the extender to read the intent", func(context.Context) (bool, error) {
		return strings.Contains(ext.stderr.String(), `"Read the planned placements" configMap="`+c.state+`" evictions=1`), ext.exited()
	})
	if err != nil {
		t.Fatal(err)
	}

	known := maps.Clone(c.before)
	// landed waits for the one new pod of web and returns its node.
	landed := func(why string) string {
		t.Helper()
		var node string
		err := harness.WaitFor(ctx, time.Minute, why, func(context.Context) (bool, error) {
			for name, p := range pods(t, cp, f.ns, web.Selector()) {
				if _, old := known[name]; old || p.DeletionTimestamp != nil || p.Spec.NodeName == "" {
					continue
				}
				known[name], node = p, p.Spec.NodeName
				return true, nil
			}
			return false, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return node
	}

	scale := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, web.Replicas+1)
	if _, err := cp.Client.AppsV1().Deployments(f.ns).Patch(ctx, web.Name, types.StrategicMergePatchType, scale, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if node := landed("the scale-up's pod to be bound"); node == f.nodes[0] {
		t.Errorf("the scale-up's pod landed on %s: steered by the intent of %s, which still runs", node, recorded.Name)
	}
	if !strings.Contains(ext.stderr.String(), "still running under their UIDs") {
		t.Errorf("the extender did not say why it let the scale-up's pod pass")
	}

	if err := cp.Client.CoreV1().Pods(f.ns).Delete(ctx, recorded.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if node := landed("the replacement of " + recorded.Name + " to be bound"); node != f.nodes[0] {
		t.Errorf("the replacement of %s landed on %s; the intent put it on %s", recorded.Name, node, f.nodes[0])
	}
}

// TestExtenderStopsSteeringAnEvictionDatedAheadAfterTheTTL: an eviction
// dated 2099 (a clock ahead, a hand edit) steers for --handoff-ttl from
// when the extender first read it, not until 2099: a new pod of the
// workload after that is placed by kube-scheduler on its own.
func TestExtenderStopsSteeringAnEvictionDatedAheadAfterTheTTL(t *testing.T) {
	const ttl = 3 * time.Second
	c := newCrammed(t, "ahead-ttl", "--handoff-ttl", ttl.String())
	cp, f, web, ext := c.cp, c.f, c.web, c.ext
	ctx := t.Context()
	// A pod that has left; the crammed node, which kube-scheduler, spreading,
	// never chooses on its own while three nodes stand empty.
	body, _ := json.Marshal([]cluster.Eviction{{Pod: f.ns + "/web-evicted", UID: "4d7c0d5e-0000-4000-8000-000000000003",
		Workload: cluster.Workload{Kind: "Deployment", Namespace: f.ns, Name: web.Name}, From: f.nodes[0], To: f.nodes[0],
		Strategy: "LowNodeUtilization", At: time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)}})
	writeState(t, cp, f.ns, map[string]string{"evictions.json": string(body)})
	err := harness.WaitFor(ctx, time.Minute, "the extender to read the intent", func(context.Context) (bool, error) {
		return strings.Contains(ext.stderr.String(), `"Read the planned placements" configMap="`+c.state+`" evictions=1`), ext.exited()
	})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(ttl + time.Second)

	scale := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, web.Replicas+1)
	if _, err := cp.Client.AppsV1().Deployments(f.ns).Patch(ctx, web.Name, types.StrategicMergePatchType, scale, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	var node string
	err = harness.WaitFor(ctx, time.Minute, "the scale-up's pod to be bound", func(context.Context) (bool, error) {
		for name, p := range pods(t, cp, f.ns, web.Selector()) {
			if _, old := c.before[name]; !old && p.Spec.NodeName != "" {
				node = p.Spec.NodeName
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if node == f.nodes[0] || strings.Contains(ext.stderr.String(), "Replacement steered to its planned node") {
		t.Errorf("the scale-up's pod landed on %s, steered by an eviction dated 2099 %s after the extender read it; --handoff-ttl is %s",
			node, ttl+time.Second, ttl)
	}
}
