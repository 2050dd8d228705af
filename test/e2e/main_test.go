package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube-rebalancer/rebalancer/report"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// manualScheduler is a schedulerName no scheduler serves: pods naming it
// stay Pending until a test binds them, so every imbalance is the one the
// test built.
const manualScheduler = "e2e-manual"

var (
	// binary is the rebalancer built once by TestMain, from repoRoot.
	binary   string
	repoRoot string

	sharedOnce sync.Once
	shared     *harness.ControlPlane
	sharedErr  error
)

// spawnEnv, set to a file, makes the test binary a small parent that runs
// its arguments and reports the child's peak RSS there (see spawn).
const spawnEnv = "REBALANCER_E2E_SPAWN_RUSAGE"

func TestMain(m *testing.M) {
	if out := os.Getenv(spawnEnv); out != "" {
		os.Exit(spawn(out, os.Args[1:]))
	}
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "rebalancer-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if binary, err = buildRebalancer(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	if shared != nil {
		// Keeps the component logs when a test failed.
		shared.Shutdown(code != 0)
	}
	return code
}

// buildRebalancer builds the binary the way a user does, from the module
// root, so the tests exercise the same flags, exit codes and output.
func buildRebalancer(dir string) (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	repoRoot = filepath.Dir(strings.TrimSpace(string(out)))
	bin := filepath.Join(dir, "rebalancer")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/rebalancer")
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/rebalancer in %s: %w\n%s", repoRoot, err, out)
	}
	return bin, nil
}

// sharedControlPlane is the package's control plane, started on first use so
// that running only a test with a control plane of its own does not pay for
// it. It has no kube-scheduler: tests bind pods themselves, or run
// `rebalancer schedule`.
func sharedControlPlane(t *testing.T) *harness.ControlPlane {
	t.Helper()
	sharedOnce.Do(func() {
		// The first start may build the component binaries.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		defer cancel()
		// kwok serves resource metrics for the tests that run
		// metrics-server; scraping nothing, they cost nothing.
		shared, sharedErr = harness.Start(ctx, nil, harness.Options{ResourceMetrics: true})
	})
	if sharedErr != nil {
		t.Fatalf("starting the control plane: %v", sharedErr)
	}
	shared.ReportOnFailure(t)
	return shared
}

// ownControlPlane starts a control plane for one test that breaks it or
// loads it heavily; it stops with the test and keeps its logs if it failed.
func ownControlPlane(t *testing.T, opts harness.Options) *harness.ControlPlane {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Minute)
	defer cancel()
	cp, err := harness.Start(ctx, t, opts)
	if err != nil {
		t.Fatalf("starting a control plane: %v", err)
	}
	return cp
}

// fixture is one test's corner of a control plane: a namespace and a node
// set of the same name, which the test's policy selects so that it never
// sees the nodes of another test.
type fixture struct {
	t     *testing.T
	cp    *harness.ControlPlane
	ns    string
	nodes []string
}

func newFixture(t *testing.T, cp *harness.ControlPlane, name string, nodes int, spec harness.NodeSpec) *fixture {
	t.Helper()
	ctx := t.Context()
	if _, err := cp.CreateNamespace(ctx, name); err != nil {
		t.Fatal(err)
	}
	spec.NamePrefix = name
	created, err := cp.CreateNodes(ctx, nodes, spec)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, cp: cp, ns: name}
	for _, n := range created {
		f.nodes = append(f.nodes, n.Name)
	}
	return f
}

// pile creates a Deployment whose pods the test binds round-robin to the
// given nodes, and waits until they all run there. The Deployment tolerates
// all its pods down at once (maxUnavailable 100%).
func (f *fixture) pile(spec harness.WorkloadSpec, nodes ...string) map[string]corev1.Pod {
	f.t.Helper()
	ctx := f.t.Context()
	if spec.Namespace == "" {
		spec.Namespace = f.ns
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = manualScheduler
	}
	if _, err := f.cp.CreateDeployment(ctx, spec); err != nil {
		f.t.Fatal(err)
	}
	// The test binds the pods, and no one their replacements: a run that
	// took the Deployment's pods in several steps would wait for
	// replacements nothing places. Its own maxUnavailable of 100% lets a
	// step take them all (TestImplicitBudgetPacesATaintedDeployment has a
	// Deployment that keeps the default).
	everything := []byte(`{"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"100%"}}}}`)
	if _, err := f.cp.Client.AppsV1().Deployments(spec.Namespace).Patch(ctx, spec.Name, types.StrategicMergePatchType, everything, metav1.PatchOptions{}); err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.cp.BindPendingPods(ctx, spec.Namespace, spec.Selector(), int(spec.Replicas), nodes); err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.cp.WaitForPodsRunning(ctx, spec.Namespace, spec.Selector(), int(spec.Replicas)); err != nil {
		f.t.Fatal(err)
	}
	return pods(f.t, f.cp, spec.Namespace, spec.Selector())
}

// policy writes a policy that selects only the fixture's nodes and
// namespaces, followed by body (limits, strategies…).
func (f *fixture) policy(body string, namespaces ...string) string {
	f.t.Helper()
	if len(namespaces) == 0 {
		namespaces = []string{f.ns}
	}
	doc := fmt.Sprintf(`apiVersion: rebalancer.dev/v1alpha1
kind: RebalancePolicy
nodeSelector: {matchLabels: {%s: %s}}
namespaces: {include: [%s]}
%s`, harness.NodeSetLabel, f.ns, strings.Join(namespaces, ", "), body)
	return writeFile(f.t, "policy.yaml", doc)
}

// balancing is the body of a policy with the two balancing strategies of
// the default policy and no limits of its own.
const balancing = `strategies:
  RemoveDuplicates: {}
  LowNodeUtilization:
    thresholds: {cpu: 20, memory: 20, pods: 20}
    targetThresholds: {cpu: 50, memory: 50, pods: 50}
`

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// pods returns the pods of a namespace matching selector, by name.
func pods(t *testing.T, cp *harness.ControlPlane, ns, selector string) map[string]corev1.Pod {
	t.Helper()
	list, err := cp.Client.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]corev1.Pod, len(list.Items))
	for _, p := range list.Items {
		out[p.Name] = p
	}
	return out
}

// unchanged reports every pod of before that is gone, replaced under the
// same name, or terminating in after.
func unchanged(before, after map[string]corev1.Pod) []string {
	var problems []string
	for name, p := range before {
		q, ok := after[name]
		switch {
		case !ok:
			problems = append(problems, name+" is gone")
		case q.UID != p.UID:
			problems = append(problems, name+" was replaced")
		case q.DeletionTimestamp != nil:
			problems = append(problems, name+" is terminating")
		}
	}
	sort.Strings(problems)
	return problems
}

// rebalancerEvents are the events rebalancer recorded in a namespace, found
// with the selector docs/install.md tells users to use.
func rebalancerEvents(t *testing.T, cp *harness.ControlPlane, ns string) []corev1.Event {
	t.Helper()
	list, err := cp.Client.CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{FieldSelector: "source=rebalancer"})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// result is one finished rebalancer process.
type result struct {
	args           []string
	stdout, stderr string
	code           int
	start, end     time.Time
	// maxRSSKiB is the child's peak resident set size. Only a measured run
	// sets floorKiB, the peak of the small parent it was started from: the
	// measurement cannot go below it.
	maxRSSKiB, floorKiB int64
}

func (r *result) wall() time.Duration { return r.end.Sub(r.start) }

func (r *result) String() string {
	return fmt.Sprintf("rebalancer %s: exit %d after %s\n--- stdout ---\n%s\n--- stderr ---\n%s",
		strings.Join(r.args, " "), r.code, r.wall().Round(time.Millisecond), clip(r.stdout), clip(r.stderr))
}

func clip(s string) string {
	const max = 20000
	if len(s) <= max {
		return s
	}
	return s[:max/2] + fmt.Sprintf("\n[… %d bytes …]\n", len(s)-max) + s[len(s)-max/2:]
}

// childEnv keeps a developer's kubeconfig and an in-cluster namespace from
// reaching the binary: every command names its cluster and state itself.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "KUBECONFIG=") || strings.HasPrefix(kv, "POD_NAMESPACE=") || strings.HasPrefix(kv, spawnEnv+"=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// rebalancer runs the binary to completion. Its output is logged if the
// test fails, whatever the test checked.
func rebalancer(t *testing.T, args ...string) *result {
	t.Helper()
	r, err := execRebalancer(t, false, args...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// measuredRebalancer is rebalancer started from a small parent, so that its
// peak RSS is its own and not the test process's (see maxRSSKiB).
func measuredRebalancer(t *testing.T, args ...string) *result {
	t.Helper()
	r, err := execRebalancer(t, true, args...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// execRebalancer is rebalancer without t.Fatal, for a goroutine.
func execRebalancer(t *testing.T, measured bool, args ...string) (*result, error) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = childEnv()
	rusage := ""
	if measured {
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		rusage = filepath.Join(t.TempDir(), "rusage")
		cmd = exec.CommandContext(ctx, self, append([]string{binary}, args...)...)
		cmd.Env = append(childEnv(), spawnEnv+"="+rusage)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	r := &result{args: args, start: time.Now()}
	err := cmd.Run()
	r.end = time.Now()
	r.stdout, r.stderr = stdout.String(), stderr.String()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s", r)
		}
	})
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && exit.Exited():
		r.code = exit.ExitCode()
	default:
		return nil, fmt.Errorf("rebalancer %s: %v (ctx: %v)\n%s", strings.Join(args, " "), err, ctx.Err(), r)
	}
	r.maxRSSKiB = maxRSSKiB(cmd.ProcessState)
	if measured {
		data, err := os.ReadFile(rusage)
		if err != nil {
			return nil, fmt.Errorf("the spawner's measurement: %w\n%s", err, r)
		}
		var wall time.Duration
		if _, err := fmt.Sscan(string(data), &r.maxRSSKiB, &r.floorKiB, &wall); err != nil {
			return nil, fmt.Errorf("the spawner's measurement %q: %w", data, err)
		}
		// The child's own time, without the spawner's start.
		r.start = r.end.Add(-wall)
	}
	return r, nil
}

// errorLine is the "Error: …" line the binary ends with when it fails.
func errorLine(r *result) string {
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(l, "Error: ") {
			return l
		}
	}
	return ""
}

// decode reads a report printed with -o json.
func decode(t *testing.T, r *result) report.Report {
	t.Helper()
	var rep report.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("stdout is not a JSON report: %v", err)
	}
	return rep
}

// daemon is a long-running rebalancer (`schedule`).
type daemon struct {
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	done           chan struct{}
	err            error
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

func startRebalancer(t *testing.T, args ...string) *daemon {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = childEnv()
	d := &daemon{cmd: cmd, stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = d.stdout, d.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		d.err = cmd.Wait()
		close(d.done)
	}()
	t.Cleanup(func() {
		select {
		case <-d.done:
		default:
			// By PID: the process this test started, nothing else.
			_ = cmd.Process.Kill()
			<-d.done
		}
		if t.Failed() {
			t.Logf("rebalancer %s (%v)\n--- stdout ---\n%s\n--- stderr ---\n%s", strings.Join(args, " "), d.err, clip(d.stdout.String()), clip(d.stderr.String()))
		}
	})
	return d
}

// exited returns an error once the process has ended.
func (d *daemon) exited() error {
	select {
	case <-d.done:
		return fmt.Errorf("rebalancer %s exited: %v", d.cmd.Args[1], d.err)
	default:
		return nil
	}
}

// stop sends SIGTERM, as the kubelet does, and returns the exit code.
func (d *daemon) stop(t *testing.T) int {
	t.Helper()
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-d.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("rebalancer %s did not stop within 30s of SIGTERM", d.cmd.Args[1])
	}
	return d.cmd.ProcessState.ExitCode()
}

// countBy counts the values of key over items.
func countBy[T any](items []T, key func(T) string) map[string]int {
	out := map[string]int{}
	for _, it := range items {
		out[key(it)]++
	}
	return out
}
