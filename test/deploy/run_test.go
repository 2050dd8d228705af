package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/report"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// podCommand is how the kubelet would start a rendered container, done on
// this machine: its args, with every ConfigMap volume it mounts written to a
// directory that stands in for the mount path, POD_NAMESPACE as the
// downward API gives it, and the ServiceAccount's token in a kubeconfig
// instead of the in-cluster configuration.
type podCommand struct {
	args []string
	env  []string
}

func podCommandFor(t *testing.T, cp *harness.ControlPlane, w *unstructured.Unstructured, container string) podCommand {
	t.Helper()
	ctx := context.Background()
	ns := w.GetNamespace()
	spec := podSpec(t, w)
	root := t.TempDir()

	configMaps := map[string]string{} // volume name -> ConfigMap name
	for _, v := range mustSlice(spec, "volumes") {
		v := v.(map[string]any)
		if name, ok, _ := unstructured.NestedString(v, "configMap", "name"); ok {
			configMaps[v["name"].(string)] = name
		}
	}
	c := container0(t, w, container)
	args, _, _ := unstructured.NestedStringSlice(c, "args")
	for _, m := range mustSlice(c, "volumeMounts") {
		m := m.(map[string]any)
		cmName, ok := configMaps[m["name"].(string)]
		if !ok {
			t.Fatalf("%s mounts volume %v, which is not a ConfigMap this test can stand in for", key(w), m["name"])
		}
		// The ConfigMap as the API server stores it: what the pod would read.
		cm, err := cp.Client.CoreV1().ConfigMaps(ns).Get(ctx, cmName, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("ConfigMap %s/%s: %v", ns, cmName, err)
		}
		mountPath := m["mountPath"].(string)
		dir := filepath.Join(root, filepath.FromSlash(mountPath))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for k, v := range cm.Data {
			writeFile(t, dir, k, v)
		}
		for i, a := range args {
			args[i] = strings.ReplaceAll(a, mountPath+"/", dir+"/")
		}
	}
	for _, e := range mustSlice(c, "env") {
		e := e.(map[string]any)
		if fp, _, _ := unstructured.NestedString(e, "valueFrom", "fieldRef", "fieldPath"); fp != "metadata.namespace" {
			t.Fatalf("%s: env %v is not one this test can stand in for", key(w), e)
		}
	}
	sa, _, _ := unstructured.NestedString(spec, "serviceAccountName")
	kubeconfig, _, err := cp.ServiceAccountKubeconfig(ctx, ns, sa)
	if err != nil {
		t.Fatal(err)
	}
	return podCommand{
		args: append(args, "--kubeconfig="+kubeconfig),
		env:  []string{"POD_NAMESPACE=" + ns},
	}
}

// withArg replaces a --flag=value argument, or appends it.
func (p podCommand) withArg(flag, value string) podCommand {
	args := append([]string(nil), p.args...)
	for i, a := range args {
		if strings.HasPrefix(a, flag+"=") {
			args[i] = flag + "=" + value
			return podCommand{args: args, env: p.env}
		}
	}
	return podCommand{args: append(args, flag+"="+value), env: p.env}
}

// runOnce runs a command that ends by itself (a CronJob's cycle) and returns
// its stdout, stderr and exit code.
func runOnce(t *testing.T, p podCommand) (string, string, int) {
	t.Helper()
	stdout, stderr, err := runErr("", p.env, rebalancerBinary(t), p.args...)
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("rebalancer %s: %v", strings.Join(p.args, " "), err)
		}
		code = ee.ExitCode()
	}
	return stdout, stderr, code
}

// process is a long-running command (a Deployment's container).
type process struct {
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	done           chan error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func start(t *testing.T, p podCommand) *process {
	t.Helper()
	cmd := exec.Command(rebalancerBinary(t), p.args...)
	cmd.Env = append(helmEnv(), p.env...)
	pr := &process{cmd: cmd, stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = pr.stdout, pr.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { pr.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		if t.Failed() {
			t.Logf("%s stderr:\n%s", p.args[0], pr.stderr.String())
		}
	})
	return pr
}

// stop sends SIGTERM, as the kubelet does, and returns the exit code.
func (p *process) stop(t *testing.T) int {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not stop within 30s of SIGTERM", p.cmd.Args[1])
		return -1
	}
}

func (p *process) exited() error {
	select {
	case err := <-p.done:
		p.done <- err
		if err == nil {
			return fmt.Errorf("exited")
		}
		return err
	default:
		return nil
	}
}

func parseReport(t *testing.T, stdout string) report.Report {
	t.Helper()
	var r report.Report
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("the report is not JSON: %v\n%s", err, stdout)
	}
	return r
}

func podsOf(t *testing.T, cp *harness.ControlPlane, ns, selector string) map[string]corev1.Pod {
	t.Helper()
	list, err := cp.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	pods := map[string]corev1.Pod{}
	for _, p := range list.Items {
		pods[p.Name] = p
	}
	return pods
}

func rebalancerEvents(t *testing.T, cp *harness.ControlPlane, ns string) []corev1.Event {
	t.Helper()
	// The selector docs/install.md and NOTES.txt tell users to use.
	evs, err := cp.Client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{FieldSelector: "source=rebalancer"})
	if err != nil {
		t.Fatal(err)
	}
	return evs.Items
}

// TestRunAndScheduleWithChartServiceAccounts runs the product as the chart
// deploys it, against a real control plane with kwok nodes and a Deployment
// piled onto one node: the CronJob's command (its args, its policy from the
// rendered ConfigMap, its ServiceAccount's token and namespace) plans with
// --dry-run and changes nothing, then evicts through the Eviction API, with
// events and its state ConfigMap; the scheduler Deployment's command, under
// its own ServiceAccount, then binds the replacements away from the crowded
// node. Every exit code is 0: the chart's RBAC is enough.
func TestRunAndScheduleWithChartServiceAccounts(t *testing.T) {
	cp := controlPlane(t)
	ctx := context.Background()
	const ns, apps = "e2e-rebalancer", "e2e-apps"

	restrictedNamespace(t, cp, ns)
	objs := helmTemplate(t, "e2e", ns, "--set", "scheduler.enabled=true,dryRun=false")
	applyAll(t, cp, objs)

	nodes, err := cp.CreateNodes(ctx, 3, harness.NodeSpec{NamePrefix: "e2e", CPU: "4", Memory: "16Gi"})
	if err != nil {
		t.Fatal(err)
	}
	crowded := nodes[0].Name
	if _, err := cp.CreateNamespace(ctx, apps); err != nil {
		t.Fatal(err)
	}
	// Six pods of 500m on one 4-CPU node: 75% cpu, above the default
	// policy's 50% target, while the other two nodes are empty; six replicas
	// on one node of three are also duplicates. The pods name the chart's
	// scheduler, which is not running yet, so the test places them.
	web := harness.WorkloadSpec{Namespace: apps, Name: "web", Replicas: 6, CPU: "500m", SchedulerName: "rebalancer"}
	if _, err := cp.CreateDeployment(ctx, web); err != nil {
		t.Fatal(err)
	}
	// The cycle runs before the scheduler that places the replacements:
	// with the default maxUnavailable of 25% its second step would wait for
	// them. 100% lets one step take every move.
	everything := []byte(`{"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"100%"}}}}`)
	if _, err := cp.Client.AppsV1().Deployments(apps).Patch(ctx, web.Name, types.StrategicMergePatchType, everything, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cp.BindPendingPods(ctx, apps, web.Selector(), 6, []string{crowded}); err != nil {
		t.Fatal(err)
	}
	if _, err := cp.WaitForPodsRunning(ctx, apps, web.Selector(), 6); err != nil {
		t.Fatal(err)
	}
	before := podsOf(t, cp, apps, web.Selector())

	cronJob := find(t, objs, "CronJob", "e2e-rebalancer")

	t.Run("dry-run", func(t *testing.T) {
		// The dry run the chart starts with, as the documentation says.
		dry := find(t, helmTemplate(t, "e2e", ns), "CronJob", "e2e-rebalancer")
		cmd := podCommandFor(t, cp, dry, "rebalancer").withArg("--output", "json")
		if !contains(cmd.args, "--dry-run") {
			t.Fatalf("the chart's default CronJob does not pass --dry-run: %q", cmd.args)
		}
		stdout, stderr, code := runOnce(t, cmd)
		if code != 0 {
			t.Fatalf("dry run exited %d:\n%s", code, stderr)
		}
		rep := parseReport(t, stdout)
		if !rep.DryRun || len(rep.Moves) == 0 {
			t.Fatalf("dry run report: dryRun=%v, %d moves; want a plan that moves pods off %s:\n%s", rep.DryRun, len(rep.Moves), crowded, stdout)
		}
		for _, m := range rep.Moves {
			if m.From != crowded {
				t.Errorf("planned move %s from %s; only %s is crowded", m.Pod, m.From, crowded)
			}
		}
		after := podsOf(t, cp, apps, web.Selector())
		for name, p := range before {
			if q, ok := after[name]; !ok || q.UID != p.UID || q.DeletionTimestamp != nil {
				t.Errorf("the dry run disturbed pod %s", name)
			}
		}
		if evs := rebalancerEvents(t, cp, apps); len(evs) > 0 {
			t.Errorf("the dry run recorded %d events", len(evs))
		}
		// In the cluster a dry run records that it ran, under the chart's
		// RBAC, and nothing else: no eviction for the cooldown or the
		// scheduler, no Lease.
		cm, err := cp.Client.CoreV1().ConfigMaps(ns).Get(ctx, "rebalancer-state", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the dry run left no last-run record: %v", err)
		}
		var last report.RunRecord
		if err := json.Unmarshal([]byte(cm.Data[kube.RunRecordKey]), &last); err != nil || !last.DryRun || !last.Succeeded || last.Moves != len(rep.Moves) {
			t.Errorf("last-run record %q (%v), want a successful dry run of %d moves", cm.Data[kube.RunRecordKey], err, len(rep.Moves))
		}
		if evs, err := cluster.DecodeEvictions(cm); err != nil || len(evs) > 0 {
			t.Errorf("the dry run recorded evictions %v (%v)", evs, err)
		}
		if _, err := cp.Client.CoordinationV1().Leases("kube-system").Get(ctx, "rebalancer-run-lock", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("the dry run took the run Lease (err %v)", err)
		}
	})
	if t.Failed() {
		return
	}

	var evicted []string
	t.Run("run", func(t *testing.T) {
		cmd := podCommandFor(t, cp, cronJob, "rebalancer")
		if contains(cmd.args, "--dry-run") {
			t.Fatalf("with dryRun=false the CronJob dry-runs: %q", cmd.args)
		}
		// The table the CronJob prints is for people; the test reads JSON.
		stdout, stderr, code := runOnce(t, cmd.withArg("--output", "json"))
		if code != 0 {
			t.Fatalf("the CronJob's cycle exited %d under the chart's ServiceAccount:\n%s\n%s", code, stderr, stdout)
		}
		rep := parseReport(t, stdout)
		for _, m := range rep.Moves {
			if m.Result != evictor.Evicted {
				t.Errorf("move of %s: %s %s", m.Pod, m.Result, m.Message)
				continue
			}
			evicted = append(evicted, m.Pod)
		}
		if rep.DryRun || len(evicted) == 0 {
			t.Fatalf("report: dryRun=%v, evicted %d; want real evictions:\n%s", rep.DryRun, len(evicted), stdout)
		}
		sort.Strings(evicted)
		err := harness.WaitFor(ctx, time.Minute, "evicted pods to go", func(ctx context.Context) (bool, error) {
			after := podsOf(t, cp, apps, web.Selector())
			for _, p := range evicted {
				name := strings.TrimPrefix(p, apps+"/")
				if q, ok := after[name]; ok && q.UID == before[name].UID && q.DeletionTimestamp == nil {
					return false, nil
				}
			}
			return true, nil
		})
		if err != nil {
			t.Error(err)
		}
		var rebalanced []string
		for _, e := range rebalancerEvents(t, cp, apps) {
			if e.Reason == evictor.ReasonRebalanced {
				rebalanced = append(rebalanced, apps+"/"+e.InvolvedObject.Name)
			}
		}
		sort.Strings(rebalanced)
		if strings.Join(rebalanced, " ") != strings.Join(evicted, " ") {
			t.Errorf("%s events on %q; want one on each evicted pod %q", evictor.ReasonRebalanced, rebalanced, evicted)
		}
		if _, err := cp.Client.CoreV1().ConfigMaps(ns).Get(ctx, "rebalancer-state", metav1.GetOptions{}); err != nil {
			t.Errorf("the state ConfigMap: %v", err)
		}
	})
	if t.Failed() {
		return
	}

	t.Run("schedule", func(t *testing.T) {
		sched := find(t, objs, "Deployment", "e2e-rebalancer-scheduler")
		cmd := podCommandFor(t, cp, sched, "scheduler").withArg("--metrics-addr", "127.0.0.1:"+freePort(t))
		p := start(t, cmd)
		err := harness.WaitFor(ctx, 2*time.Minute, "the scheduler to bind the replacements", func(ctx context.Context) (bool, error) {
			if err := p.exited(); err != nil {
				return false, fmt.Errorf("the scheduler stopped: %v", err)
			}
			running := 0
			for _, q := range podsOf(t, cp, apps, web.Selector()) {
				if q.DeletionTimestamp == nil && harness.PodRunning(&q) {
					running++
				}
			}
			return running == 6, nil
		})
		if err != nil {
			t.Fatalf("%v\nscheduler stderr:\n%s", err, p.stderr.String())
		}
		lease, err := cp.Client.CoordinationV1().Leases(ns).Get(ctx, "rebalancer-schedule", metav1.GetOptions{})
		if err != nil || lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
			t.Errorf("the scheduler holds no Lease in %s: %v", ns, err)
		}
		perNode := map[string]int{}
		for name, q := range podsOf(t, cp, apps, web.Selector()) {
			if _, old := before[name]; !old && q.Spec.NodeName == crowded {
				t.Errorf("replacement %s went back to %s, the node its workload was evicted from", name, crowded)
			}
			perNode[q.Spec.NodeName]++
		}
		t.Logf("web pods per node after the cycle: %v", perNode)
		if code := p.stop(t); code != 0 {
			t.Errorf("the scheduler exited %d on SIGTERM:\n%s", code, p.stderr.String())
		}
	})
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

// TestDeploymentModeWithLeaderElection runs the custom values' Deployment
// (two replicas, so --leader-elect; a Pushgateway; a metrics port) as its
// pod would: under the chart's ServiceAccount it takes the Lease in its own
// namespace, completes cycles, pushes each cycle's metrics, serves
// /healthz and /metrics, and exits 0 on SIGTERM.
func TestDeploymentModeWithLeaderElection(t *testing.T) {
	cp := controlPlane(t)
	ctx := context.Background()
	const ns = "e2e-leader"
	restrictedNamespace(t, cp, ns)
	objs := helmTemplate(t, "rb", ns, "--values", testdata("values-custom.yaml"))
	applyAll(t, cp, objs)

	var (
		mu     sync.Mutex
		pushes []string
	)
	// Stands in for the Pushgateway the values name, on loopback.
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		pushes = append(pushes, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	defer gateway.Close()

	d := find(t, objs, "Deployment", "rb-rebalancer")
	addr := "127.0.0.1:" + freePort(t)
	cmd := podCommandFor(t, cp, d, "rebalancer").withArg("--pushgateway", gateway.URL).withArg("--metrics-addr", addr)
	for _, want := range []string{"--leader-elect", "--interval=90s"} {
		if !contains(cmd.args, want) {
			t.Fatalf("the Deployment's args %q lack %s", cmd.args, want)
		}
	}
	p := start(t, cmd)
	err := harness.WaitFor(ctx, 2*time.Minute, "a cycle under the Lease, pushed to the Pushgateway", func(ctx context.Context) (bool, error) {
		if err := p.exited(); err != nil {
			return false, fmt.Errorf("rebalancer stopped: %v", err)
		}
		lease, err := cp.Client.CoordinationV1().Leases(ns).Get(ctx, "rebalancer-run", metav1.GetOptions{})
		if err != nil || lease.Spec.HolderIdentity == nil {
			return false, nil
		}
		// A cycle pushes its metrics when it ends.
		mu.Lock()
		defer mu.Unlock()
		return len(pushes) > 0, nil
	})
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, p.stderr.String())
	}
	for _, path := range []string{"/healthz", "/metrics"} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Errorf("GET %s: %v", path, err)
			continue
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", path, resp.Status)
		}
	}
	mu.Lock()
	t.Logf("pushes: %q", pushes)
	mu.Unlock()
	if code := p.stop(t); code != 0 {
		t.Errorf("exit code %d on SIGTERM:\n%s", code, p.stderr.String())
	}
}
