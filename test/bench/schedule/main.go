// Command schedule measures how fast `rebalancer schedule` binds pending
// pods compared with kube-scheduler, on one real control plane
// (test/harness: etcd, kube-apiserver, kube-controller-manager, kwok):
// 1,000 kwok nodes, then for each scheduler in turn, alternating for
// several rounds, thousands of pending pods that name it, and the pods
// bound per second. `make bench-schedule` runs it; docs/performance.md
// ("Scheduling throughput") has the figures.
//
//	go run ./test/bench/schedule -nodes 1000 -pods 10000 -rounds 3
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-schedule:", err)
		os.Exit(1)
	}
}

// config is what one benchmark measures.
type config struct {
	nodes, pods, rounds, zones int
	// qps and burst are both schedulers' client limits: kube-scheduler's
	// defaults (clientConnection in its KubeSchedulerConfiguration), which
	// are also `rebalancer schedule`'s.
	qps   float64
	burst int
	// creators is how many goroutines create the pods, through a client
	// with a high rate limit, so that creating them is not what is measured.
	creators int
	// rebalancer is the binary; profiles, when set, is a directory where
	// `rebalancer schedule` writes a CPU profile of each round.
	rebalancer, profiles string
	// stall bounds how long a phase may go without a pod being bound.
	stall time.Duration
}

func run(ctx context.Context, args []string, out, progress io.Writer) error {
	var c config
	fs := flag.NewFlagSet("bench-schedule", flag.ContinueOnError)
	fs.IntVar(&c.nodes, "nodes", 1000, "kwok nodes")
	fs.IntVar(&c.pods, "pods", 10000, "pending pods each scheduler binds in a round")
	fs.IntVar(&c.rounds, "rounds", 3, "rounds; each scheduler runs once a round and the table shows medians")
	fs.IntVar(&c.zones, "zones", 3, "zones the nodes are spread over")
	fs.Float64Var(&c.qps, "qps", 50, "both schedulers' client QPS (kube-scheduler's default)")
	fs.IntVar(&c.burst, "burst", 100, "both schedulers' client burst (kube-scheduler's default)")
	fs.IntVar(&c.creators, "creators", 64, "goroutines creating the pods")
	fs.StringVar(&c.rebalancer, "rebalancer", "", "the rebalancer binary (default: built from ./cmd/rebalancer)")
	fs.StringVar(&c.profiles, "cpuprofile-dir", "", "directory where rebalancer schedule writes a CPU profile of each round")
	fs.DurationVar(&c.stall, "stall", 3*time.Minute, "give up on a scheduler that binds no pod for this long")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			// The usage is printed: nothing else was asked for.
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if c.nodes <= 0 || c.pods <= 0 || c.rounds <= 0 || c.zones <= 0 || c.creators <= 0 {
		return errors.New("-nodes, -pods, -rounds, -zones and -creators must be positive")
	}
	if c.rebalancer == "" {
		dir, err := os.MkdirTemp("", "rebalancer-bench-schedule")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		c.rebalancer = filepath.Join(dir, "rebalancer")
		build := exec.CommandContext(ctx, "go", "build", "-o", c.rebalancer, "./cmd/rebalancer")
		build.Stdout, build.Stderr = progress, progress
		if err := build.Run(); err != nil {
			return fmt.Errorf("building rebalancer: %w", err)
		}
	}
	// The schedulers run in another directory.
	var err error
	if c.rebalancer, err = filepath.Abs(c.rebalancer); err != nil {
		return err
	}
	if c.profiles != "" {
		if c.profiles, err = filepath.Abs(c.profiles); err != nil {
			return err
		}
		if err := os.MkdirAll(c.profiles, 0o755); err != nil {
			return err
		}
	}
	logf := func(format string, args ...any) { fmt.Fprintf(progress, format+"\n", args...) }

	// The first start may build the control plane's binaries.
	startCtx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	cp, err := harness.Start(startCtx, nil, harness.Options{Logf: logf})
	cancel()
	if err != nil {
		return err
	}
	failed := true
	defer func() { cp.Shutdown(failed) }()

	results, err := measureAll(ctx, cp, c, logf)
	if err != nil {
		return err
	}
	printTable(out, c, results)
	failed = false
	return nil
}

// measureAll makes the nodes, then runs each scheduler once a round, the
// order swapped every round so that neither always runs on the fresher
// API server.
func measureAll(ctx context.Context, cp *harness.ControlPlane, c config, logf func(string, ...any)) (map[string][]phase, error) {
	start := time.Now()
	zones := make([]string, c.zones)
	for i := range zones {
		zones[i] = fmt.Sprintf("zone-%c", 'a'+i)
	}
	// A common 8-vCPU, 32 GiB machine's allocatable after the kubelet's
	// and the system's reservations.
	if _, err := cp.CreateNodes(ctx, c.nodes, harness.NodeSpec{NamePrefix: "bench", CPU: "7910m", Memory: "29Gi", Pods: "110", Zones: zones}); err != nil {
		return nil, err
	}
	logf("%d nodes Ready in %s", c.nodes, time.Since(start).Round(time.Millisecond))
	if _, err := cp.CreateNamespace(ctx, benchNamespace); err != nil {
		return nil, err
	}

	schedulers := []scheduler{kubeScheduler{c: c}, rebalancerScheduler{c: c}}
	results := map[string][]phase{}
	for round := 1; round <= c.rounds; round++ {
		order := schedulers
		if round%2 == 0 {
			order = []scheduler{schedulers[1], schedulers[0]}
		}
		for _, s := range order {
			ph, err := measure(ctx, cp, c, s, round)
			if err != nil {
				return nil, fmt.Errorf("round %d, %s: %w", round, s.name(), err)
			}
			logf("round %d %-15s %s", round, s.name(), ph)
			results[s.name()] = append(results[s.name()], ph)
		}
	}
	return results, nil
}

// measure runs one scheduler through one phase: create the pods, all
// pending, then start the scheduler, so that it meets a backlog of c.pods
// pods however fast the API server took them; wait until all are bound,
// stop the scheduler, delete the pods.
func measure(ctx context.Context, cp *harness.ControlPlane, c config, s scheduler, round int) (phase, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	phaseID := fmt.Sprintf("%d-%s", round, s.name())
	w := newBindWatch(cp.Client, phaseID, c.pods)
	if err := w.start(ctx); err != nil {
		return phase{}, err
	}
	if err := createPods(ctx, cp, c, s.schedulerName(), phaseID); err != nil {
		return phase{}, err
	}
	ph := phase{pods: c.pods, created: w.elapsed()}

	proc, err := s.start(ctx, cp, round)
	if err != nil {
		return phase{}, err
	}
	ph.started = w.elapsed()
	stopped := false
	stop := func() {
		if !stopped {
			// Time to write the CPU profile.
			proc.Stop(30 * time.Second)
			stopped = true
		}
	}
	defer stop()
	alive := func() error {
		if err := proc.Exited(); err != nil {
			return fmt.Errorf("%w; last lines of %s:\n%s", err, proc.LogPath(), proc.Tail(30))
		}
		return nil
	}
	ph.firstBound, ph.lastBound, err = waitBound(ctx, w, c, alive)
	if err == nil && proc.note != nil {
		ph.note = proc.note(ctx)
	}
	stop()
	if err != nil {
		return phase{}, err
	}
	names := make([]string, c.pods)
	for i := range names {
		names[i] = podName(phaseID, i)
	}
	return ph, deletePods(ctx, cp, names, c.creators)
}
