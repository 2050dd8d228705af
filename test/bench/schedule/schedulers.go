package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// scheduler is one of the two schedulers measured. Both run as the API
// server's admin (group system:masters, which API Priority and Fairness
// exempts), so that the API server treats their requests alike, and with
// the same client QPS and burst.
type scheduler interface {
	// name is the scheduler's name in the table.
	name() string
	// schedulerName is the spec.schedulerName of the pods it binds.
	schedulerName() string
	start(ctx context.Context, cp *harness.ControlPlane, round int) (running, error)
}

// running is a started scheduler.
type running struct {
	*harness.Process
	// note, if set, says what the scheduler reports of its own work while
	// it still runs, for the round's line.
	note func(ctx context.Context) string
}

// kubeScheduler is kube-scheduler 1.36, as test/tools builds it, with its
// default profile.
type kubeScheduler struct{ c config }

func (kubeScheduler) name() string          { return "kube-scheduler" }
func (kubeScheduler) schedulerName() string { return "default-scheduler" }

func (k kubeScheduler) start(_ context.Context, cp *harness.ControlPlane, round int) (running, error) {
	dir := filepath.Join(cp.Dir, fmt.Sprintf("kube-scheduler-%d", round))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return running{}, err
	}
	// Client limits and leader election are only settable in the
	// configuration file: with --config the matching flags are ignored.
	config := filepath.Join(dir, "config.yaml")
	err := os.WriteFile(config, fmt.Appendf(nil, `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %q
  qps: %g
  burst: %d
leaderElection:
  leaderElect: false
profiles:
- schedulerName: %s
`, cp.Kubeconfig, k.c.qps, k.c.burst, k.schedulerName()), 0o600)
	if err != nil {
		return running{}, err
	}
	port, err := freePort()
	if err != nil {
		return running{}, err
	}
	p, err := cp.StartProcess("bench-kube-scheduler", "kube-scheduler",
		"--config="+config,
		"--authentication-kubeconfig="+cp.Kubeconfig,
		"--authorization-kubeconfig="+cp.Kubeconfig,
		"--authentication-skip-lookup",
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir="+dir,
	)
	return running{Process: p}, err
}

// rebalancerScheduler is `rebalancer schedule` built from the checkout, with
// kube-scheduler's default profile (no --config).
type rebalancerScheduler struct{ c config }

func (rebalancerScheduler) name() string          { return "rebalancer" }
func (rebalancerScheduler) schedulerName() string { return "rebalancer" }

func (r rebalancerScheduler) start(_ context.Context, cp *harness.ControlPlane, round int) (running, error) {
	port, err := freePort()
	if err != nil {
		return running{}, err
	}
	metrics := fmt.Sprintf("127.0.0.1:%d", port)
	args := []string{"schedule",
		"--metrics-addr", metrics,
		"--kubeconfig", cp.Kubeconfig,
		"--scheduler-name", r.schedulerName(),
		"--qps", fmt.Sprintf("%g", r.c.qps),
		"--burst", fmt.Sprint(r.c.burst),
	}
	if r.c.profiles != "" {
		args = append(args, "--cpuprofile", filepath.Join(r.c.profiles, fmt.Sprintf("schedule-round-%d.pprof", round)))
	}
	p, err := cp.StartProcess("bench-rebalancer", r.c.rebalancer, args...)
	return running{Process: p, note: func(ctx context.Context) string { return bindingTime(ctx, metrics) }}, err
}

// bindingTime is how long `rebalancer schedule`'s Binding calls took on
// average, its client's rate limiter included, from its metrics. The calls
// overlap (each pod is bound from a goroutine of its own while the next is
// decided), so with a backlog the mean is mostly the wait for the limiter.
func bindingTime(ctx context.Context, addr string) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return ""
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return ""
	}
	var sum, count string
	for line := range strings.Lines(string(body)) {
		name, value, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch name {
		case "rebalancer_scheduler_binding_duration_seconds_sum":
			sum = value
		case "rebalancer_scheduler_binding_duration_seconds_count":
			count = value
		}
	}
	seconds, err := strconv.ParseFloat(sum, 64)
	if err != nil {
		return ""
	}
	n, err := strconv.ParseFloat(count, 64)
	if err != nil || n == 0 {
		return ""
	}
	return fmt.Sprintf("%s Binding calls, %.2fs each on average", count, seconds/n)
}

// freePort finds a loopback port for kube-scheduler's health endpoint, which
// it always serves.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
