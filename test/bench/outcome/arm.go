package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// arm is one way of rebalancing a scenario's cluster.
type arm struct {
	key, title string
	// descheduler runs the descheduler, with the DefaultEvictor's nodeFit.
	descheduler, nodeFit bool
	// Otherwise rebalancer runs, with replacements predicted (plain
	// kube-scheduler), steered by `rebalancer extender` in kube-scheduler,
	// or steered by `rebalancer schedule`, which the workloads name.
	predicted, extender, schedule bool
}

var arms = []arm{
	{key: "descheduler", title: "descheduler", descheduler: true},
	{key: "descheduler-nodefit", title: "descheduler nodeFit", descheduler: true, nodeFit: true},
	{key: "steered", title: "rebalancer + extender", extender: true},
	{key: "predicted", title: "rebalancer predicted", predicted: true},
	{key: "schedule", title: "rebalancer schedule", schedule: true},
}

// stateConfigMap is where `rebalancer run` records its evictions and the
// extender and `rebalancer schedule` read them.
const stateConfigMap = "default/rebalancer-state"

// rebalancerScheduler is the schedulerName of the workloads in the arm of
// `rebalancer schedule`.
const rebalancerScheduler = "rebalancer"

// config is what every arm shares.
type config struct {
	rebalancer, descheduler string
	cycles                  int
	// settle bounds the wait, after a run, for the workloads to be
	// Running again; toolTimeout bounds a run.
	settle, toolTimeout time.Duration
	out                 string // where the policies and each run's output go
	keep                bool   // keep each control plane's directory
	logf                func(format string, args ...any)
}

// result is an arm's figures on a scenario.
type result struct {
	arm                    arm
	cycles                 []cycleDiff
	quiet                  bool // the last cycle evicted nothing
	evictions, minimal     int
	landedBack, pdbRefused int
	fewerReady             int
	before, after          balance
	exitCodes              []int // of the rebalancing runs, in order
}

// wasted are the evictions beyond the minimal moves: replacements that
// landed back, or moved on again.
func (r result) wasted() int { return r.evictions - r.minimal }

// untilQuiet is the cycles that evicted before the first that did not.
func (r result) untilQuiet() string {
	n := 0
	for _, c := range r.cycles {
		if c.evicted > 0 {
			n++
		}
	}
	if !r.quiet {
		return fmt.Sprintf("not in %d", len(r.cycles))
	}
	return fmt.Sprint(n)
}

// env is an arm's own control plane and what runs beside it.
type env struct {
	cp            *harness.ControlPlane
	schedulerName string
	namespaces    []string
	logf          func(format string, args ...any)
}

func runArm(ctx context.Context, cfg config, sc scenario, a arm) (res result, err error) {
	res.arm = a
	dir := filepath.Join(cfg.out, sc.key, a.key)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, err
	}
	audit := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(audit, []byte(auditPolicy), 0o644); err != nil {
		return res, err
	}
	auditLog := filepath.Join(dir, "audit.log")
	opts := harness.Options{Scheduler: true, ExtraAPIServerArgs: []string{
		"--audit-policy-file=" + audit, "--audit-log-path=" + auditLog, "--audit-log-format=json",
	}}
	var addr string
	if a.extender {
		if addr, err = freeAddr(); err != nil {
			return res, err
		}
		// As docs/extender.md wires it.
		opts.SchedulerConfig = fmt.Sprintf(`extenders:
  - urlPrefix: "http://%s/"
    filterVerb: filter
    prioritizeVerb: prioritize
    weight: 5
    nodeCacheCapable: true
    ignorable: true
    httpTimeout: 5s
`, addr)
	}
	cp, err := harness.Start(ctx, nil, opts)
	if err != nil {
		return res, err
	}
	failed := true
	defer func() { cp.Shutdown(failed || cfg.keep) }()
	e := &env{cp: cp, logf: cfg.logf}

	switch {
	case a.extender:
		p, err := cp.StartProcess("rebalancer-extender", cfg.rebalancer, "extender", "--kubeconfig", cp.Kubeconfig,
			"--listen", addr, "--state-configmap", stateConfigMap, "-v", "2")
		if err != nil {
			return res, err
		}
		defer p.Stop(5 * time.Second)
		err = harness.WaitFor(ctx, time.Minute, "the extender to be ready", func(ctx context.Context) (bool, error) {
			if err := p.Exited(); err != nil {
				return false, fmt.Errorf("the extender exited: %w: %s", err, p.Tail(5))
			}
			resp, err := http.Get("http://" + addr + "/readyz")
			if err != nil {
				return false, nil
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK, nil
		})
		if err != nil {
			return res, err
		}
	case a.schedule:
		p, err := cp.StartProcess("rebalancer-schedule", cfg.rebalancer, "schedule", "--kubeconfig", cp.Kubeconfig,
			"--state-configmap", stateConfigMap, "--scheduler-name", rebalancerScheduler, "-v", "2")
		if err != nil {
			return res, err
		}
		defer p.Stop(5 * time.Second)
		e.schedulerName = rebalancerScheduler
	}

	if err := sc.setup(ctx, e); err != nil {
		return res, fmt.Errorf("setting up: %w", err)
	}
	first, err := e.waitSettled(ctx, cfg.settle)
	if err != nil {
		return res, err
	}
	policy, argv, err := policyAndArgv(cfg, sc, a, dir, cp.Kubeconfig)
	if err != nil {
		return res, err
	}
	cfg.logf("%s / %s: %d pods on %d nodes; policy %s", sc.key, a.key, len(first.pods), len(first.nodes), policy)

	before := first
	for i := range cfg.cycles {
		code, err := runTool(ctx, cfg.toolTimeout, argv, filepath.Join(dir, fmt.Sprintf("cycle-%d", i+1)))
		if err != nil {
			return res, fmt.Errorf("cycle %d: %w", i+1, err)
		}
		res.exitCodes = append(res.exitCodes, code)
		after, err := e.waitSettled(ctx, cfg.settle)
		if err != nil {
			return res, err
		}
		d := diff(before, after)
		res.cycles = append(res.cycles, d)
		res.evictions += d.evicted
		res.landedBack += d.landedBack
		cfg.logf("%s / %s: cycle %d exited %d, evicted %d, %d landed back", sc.key, a.key, i+1, code, d.evicted, d.landedBack)
		before = after
		if d.evicted == 0 {
			res.quiet = true
			break
		}
	}
	res.minimal = minimalMoves(first, before)
	res.before, res.after = measureBalance(first), measureBalance(before)
	for w, n := range first.ready {
		if before.ready[w] < n {
			res.fewerReady++
		}
	}
	if res.pdbRefused, err = pdbRefusals(auditLog); err != nil {
		return res, err
	}
	failed = false
	return res, nil
}

// waitSettled waits until every workload has its pods Running (or
// unschedulable) and returns the state then, or the state at the timeout.
func (e *env) waitSettled(ctx context.Context, timeout time.Duration) (*state, error) {
	deadline := time.Now().Add(timeout)
	for {
		s, err := read(ctx, e.cp.Client, e.namespaces)
		if err != nil {
			return nil, err
		}
		ok, why := s.settled()
		if ok {
			return s, nil
		}
		if time.Now().After(deadline) {
			e.logf("not settled after %s (%s): measuring as it is", timeout, why)
			return s, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

// policyAndArgv writes the arm's policy and returns it with the command
// line of one cycle. Both tools read the same DeschedulerPolicy; rebalancer's
// arms read what `rebalancer convert` makes of it, with
// `replacements: predicted` added for that arm.
func policyAndArgv(cfg config, sc scenario, a arm, dir, kubeconfig string) (string, []string, error) {
	desched := filepath.Join(dir, "descheduler-policy.yaml")
	if err := os.WriteFile(desched, []byte(deschedulerPolicy(sc, a.nodeFit)), 0o644); err != nil {
		return "", nil, err
	}
	if a.descheduler {
		// One cycle (no --descheduling-interval), no server of its own.
		return desched, []string{cfg.descheduler, "--kubeconfig", kubeconfig, "--policy-config-file", desched, "--secure-port=0", "--v=3"}, nil
	}
	converted, err := exec.Command(cfg.rebalancer, "convert", desched).Output()
	if err != nil {
		return "", nil, fmt.Errorf("rebalancer convert: %w", err)
	}
	if a.predicted {
		converted = append(converted, "replacements: predicted\n"...)
	}
	pol := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(pol, converted, 0o644); err != nil {
		return "", nil, err
	}
	return pol, []string{cfg.rebalancer, "run", "--kubeconfig", kubeconfig, "--policy", pol, "--state-configmap", stateConfigMap,
		"--step-timeout", "90s", "--max-duration", "5m", "-o", "json", "-v", "2"}, nil
}

// runTool runs one cycle, its stdout and stderr to base.out and base.err,
// and returns its exit code; only a failure to start or the timeout is an
// error.
func runTool(ctx context.Context, timeout time.Duration, argv []string, base string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stdout, err := os.Create(base + ".out")
	if err != nil {
		return 0, err
	}
	defer stdout.Close()
	stderr, err := os.Create(base + ".err")
	if err != nil {
		return 0, err
	}
	defer stderr.Close()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Run()
	if ctx.Err() != nil {
		return 0, fmt.Errorf("%s did not finish in %s", filepath.Base(argv[0]), timeout)
	}
	if exit, ok := err.(*exec.ExitError); ok {
		return exit.ExitCode(), nil
	}
	return 0, err
}

// auditPolicy has the API server record every eviction request and its
// answer, and nothing else.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
    resources: [{group: "", resources: ["pods/eviction"]}]
  - level: None
`

// pdbRefusals counts the eviction requests the API server answered with
// 429 Too Many Requests: a PodDisruptionBudget allowed no disruption.
func pdbRefusals(auditLog string) (int, error) {
	f, err := os.Open(auditLog)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev struct {
			Stage     string `json:"stage"`
			ObjectRef struct {
				Subresource string `json:"subresource"`
			} `json:"objectRef"`
			ResponseStatus struct {
				Code int `json:"code"`
			} `json:"responseStatus"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		if ev.Stage == "ResponseComplete" && ev.ObjectRef.Subresource == "eviction" && ev.ResponseStatus.Code == http.StatusTooManyRequests {
			n++
		}
	}
	return n, sc.Err()
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// indent prefixes every line of s but empty ones.
func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}
