// Command outcome shows what a rebalancing achieves: for each scenario, an
// imbalance built on a fresh control plane per arm (test/harness: etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler, kwok nodes), the
// descheduler v0.36 (test/tools/descheduler) and rebalancer run as a
// CronJob would, one run per cycle until a cycle evicts nothing, and the
// figures of the cluster before and after, read from the API server:
// evictions, the minimal moves, wasted evictions, replacements that landed
// back, PDB refusals, Pending pods and the balance. `make bench-outcome`
// runs it; docs/outcome.md has the figures and how each is computed.
//
//	go run ./test/bench/outcome -scenarios binpack,pdb -arms descheduler,steered
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "outcome:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	all := scenarios()
	var keys, armKeys []string
	for _, s := range all {
		keys = append(keys, s.key)
	}
	for _, a := range arms {
		armKeys = append(armKeys, a.key)
	}
	fs := flag.NewFlagSet("outcome", flag.ContinueOnError)
	scFlag := fs.String("scenarios", strings.Join(keys, ","), "scenarios to run, comma-separated")
	armFlag := fs.String("arms", strings.Join(armKeys, ","), "arms to run on each scenario, comma-separated")
	cycles := fs.Int("cycles", 5, "at most this many runs per arm; an arm stops at the first that evicts nothing")
	settle := fs.Duration("settle", 2*time.Minute, "after a run, how long to wait for the workloads to be Running again")
	toolTimeout := fs.Duration("run-timeout", 6*time.Minute, "how long one run of a tool may take")
	outDir := fs.String("out", "", "where the policies, each run's output and the audit logs go (default: a new directory under $TMPDIR)")
	keep := fs.Bool("keep", false, "keep each control plane's directory (component logs)")
	rebalancer := fs.String("rebalancer", "", "the rebalancer binary (default: built from ./cmd/rebalancer)")
	descheduler := fs.String("descheduler", "", "the descheduler binary (default: built by test/tools/descheduler/build.sh)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var scs []scenario
	for k := range strings.SplitSeq(*scFlag, ",") {
		s, ok := byKey(all, strings.TrimSpace(k))
		if !ok {
			return fmt.Errorf("-scenarios: no scenario %q (there are %s)", k, strings.Join(keys, ", "))
		}
		scs = append(scs, s)
	}
	var as []arm
	for k := range strings.SplitSeq(*armFlag, ",") {
		a, ok := armByKey(strings.TrimSpace(k))
		if !ok {
			return fmt.Errorf("-arms: no arm %q (there are %s)", k, strings.Join(armKeys, ", "))
		}
		as = append(as, a)
	}
	if *cycles < 1 {
		return fmt.Errorf("-cycles %d: want at least 1", *cycles)
	}
	var err error
	if *outDir == "" {
		if *outDir, err = os.MkdirTemp("", "rebalancer-outcome-"); err != nil {
			return err
		}
	}
	cfg := config{cycles: *cycles, settle: *settle, toolTimeout: *toolTimeout, out: *outDir, keep: *keep, logf: logf,
		rebalancer: *rebalancer, descheduler: *descheduler}
	if cfg.rebalancer == "" {
		cfg.rebalancer = filepath.Join(*outDir, "rebalancer")
		if err := command(ctx, "go", "build", "-o", cfg.rebalancer, "./cmd/rebalancer"); err != nil {
			return fmt.Errorf("building rebalancer: %w", err)
		}
	}
	if cfg.descheduler == "" && needsDescheduler(as) {
		bin, err := exec.CommandContext(ctx, "test/tools/descheduler/build.sh").Output()
		if err != nil {
			return fmt.Errorf("building the descheduler: %w", err)
		}
		cfg.descheduler = filepath.Join(strings.TrimSpace(string(bin)), "descheduler")
	}
	logf("the runs' output goes to %s", *outDir)

	var results [][]result
	for _, sc := range scs {
		var rs []result
		for _, a := range as {
			start := time.Now()
			r, err := runArm(ctx, cfg, sc, a)
			if err != nil {
				return fmt.Errorf("%s, %s: %w", sc.key, a.key, err)
			}
			logf("%s / %s: done in %s", sc.key, a.key, time.Since(start).Round(time.Second))
			rs = append(rs, r)
		}
		results = append(results, rs)
		printScenario(out, sc, rs)
	}
	printSummary(out, scs, results)
	return nil
}

func armByKey(key string) (arm, bool) {
	for _, a := range arms {
		if a.key == key {
			return a, true
		}
	}
	return arm{}, false
}

func needsDescheduler(as []arm) bool {
	for _, a := range as {
		if a.descheduler {
			return true
		}
	}
	return false
}

func command(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}
