// Command vsdescheduler runs `rebalancer run --dry-run` and the descheduler
// v0.36 (built from the Go module proxy, test/tools/descheduler) side by
// side against one real control plane (test/harness: kube-apiserver,
// kube-controller-manager, kwok nodes), with the same DeschedulerPolicy
// (every-strategy-descheduler.yaml: every strategy but HighNodeUtilization,
// no limits). The cluster is filled to each size in turn, growing, and at
// each size the two tools alternate for several rounds; the table prints
// the medians of wall time and peak RSS of each process and the ratios
// against the targets. `make bench-vs-descheduler` runs it.
//
// Beside them runs the floor (./floor): a bare client-go reader that lists
// what run lists, as run lists it, and nothing else, once with the kinds one
// after another and once at once; run's wall time and its "Read the
// cluster" part are shown as ratios of the faster of the two. With -read
// only run and the floor take turns (`make bench-read`). With -ways the
// floor also reads by the streaming list of the WatchList feature and by
// one LIST a kind at resourceVersion "0", and a last table sets them
// against the paginated LIST.
//
//	go run ./test/bench/vsdescheduler -sizes 600x10000,2000x40000 -rounds 3
//	go run ./test/bench/vsdescheduler -read -sizes 2000x40000 -rounds 3
//	go run ./test/bench/vsdescheduler -read -ways -sizes 2000x40000 -rounds 5
//	go run ./test/bench/vsdescheduler -ways -descheduler-up-to 40000 -sizes 2000x40000,5000x150000
//
// With -kubeconfig the rounds run on a cluster that is already filled, such
// as one that -hold kept and that has settled since:
//
//	go run ./test/bench/vsdescheduler -kubeconfig /tmp/rebalancer-cp-…/admin.kubeconfig -sizes 2000x40000 -rounds 12
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
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kube-rebalancer/rebalancer/test/bench/figures"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "vsdescheduler:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("vsdescheduler", flag.ContinueOnError)
	sizesFlag := fs.String("sizes", "600x10000,2000x40000", "cluster sizes as NODESxPODS, comma-separated, growing")
	rounds := fs.Int("rounds", 3, "rounds per size, each running both tools; the table shows medians")
	rebalancer := fs.String("rebalancer", "", "the rebalancer binary (default: built from ./cmd/rebalancer)")
	descheduler := fs.String("descheduler", "", "the descheduler binary (default: built by test/tools/descheduler/build.sh)")
	hold := fs.Bool("hold", false, "after the last size, keep the control plane and print its kubeconfig until interrupted, to profile either tool against it")
	policy := fs.String("policy", "test/bench/every-strategy-descheduler.yaml", "the DeschedulerPolicy both tools run")
	readOnly := fs.Bool("read", false, "measure run --dry-run against the floor only, without the descheduler")
	deschedulerUpTo := fs.Int("descheduler-up-to", 0, "run the descheduler only at sizes of at most this many pods (0: at every size); above, run and the floor take turns as with -read")
	ways := fs.Bool("ways", false, "also read with the floor the ways an API server offers besides the paginated LIST: the streaming list and a LIST from the watch cache")
	kubeconfig := fs.String("kubeconfig", "", "measure on the running cluster of this kubeconfig, filled to the one size -sizes names (a cluster -hold kept, once it settled), instead of starting and filling one")
	if err := fs.Parse(args); err != nil {
		return err
	}
	sizes, err := parseSizes(*sizesFlag)
	if err != nil {
		return err
	}
	if *rounds < 1 {
		return fmt.Errorf("-rounds %d: want at least 1", *rounds)
	}
	if *kubeconfig != "" && (len(sizes) != 1 || *hold) {
		return fmt.Errorf("-kubeconfig: want the one size of its cluster in -sizes, and no -hold")
	}
	if *policy, err = filepath.Abs(*policy); err != nil {
		return err
	}
	if *rebalancer == "" {
		dir, err := os.MkdirTemp("", "rebalancer-vs")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		*rebalancer = filepath.Join(dir, "rebalancer")
		if err := command(ctx, "go", "build", "-o", *rebalancer, "./cmd/rebalancer"); err != nil {
			return fmt.Errorf("building rebalancer: %w", err)
		}
	}
	floorDir, err := os.MkdirTemp("", "rebalancer-floor")
	if err != nil {
		return err
	}
	defer os.RemoveAll(floorDir)
	floor := filepath.Join(floorDir, "floor")
	if err := command(ctx, "go", "build", "-o", floor, "./test/bench/vsdescheduler/floor"); err != nil {
		return fmt.Errorf("building the floor: %w", err)
	}
	// A cold build of the descheduler takes minutes: it goes on while the
	// cluster fills, and the first measurement waits for it.
	built := make(chan error, 1)
	if *descheduler == "" && !*readOnly {
		go func() {
			bin, err := exec.CommandContext(ctx, "test/tools/descheduler/build.sh").Output()
			if err != nil {
				built <- fmt.Errorf("building the descheduler: %w", err)
				return
			}
			*descheduler = filepath.Join(strings.TrimSpace(string(bin)), "descheduler")
			built <- nil
		}()
	} else {
		built <- nil
	}
	tools := [toolCount]tool{
		rebalancerTool: {name: "rebalancer", argv: func(kubeconfig string) []string {
			return []string{*rebalancer, "run", "--dry-run", "--kubeconfig", kubeconfig, "--policy", *policy, "-v=1"}
		}},
		deschedulerTool: {name: "descheduler", argv: func(kubeconfig string) []string {
			// One cycle (no --descheduling-interval), and no metrics
			// server of its own (--secure-port=0).
			return []string{*descheduler, "--dry-run", "--kubeconfig", kubeconfig, "--policy-config-file", *policy, "--secure-port=0", "--v=1"}
		}},
		floorSequential: {name: "floor", argv: func(kubeconfig string) []string {
			return []string{floor, "-kubeconfig", kubeconfig}
		}},
		floorConcurrent: {name: "floor", argv: func(kubeconfig string) []string {
			return []string{floor, "-kubeconfig", kubeconfig, "-concurrent"}
		}},
		floorStream: {name: "floor", argv: func(kubeconfig string) []string {
			return []string{floor, "-kubeconfig", kubeconfig, "-concurrent", "-way", "stream"}
		}},
		floorRV0: {name: "floor", argv: func(kubeconfig string) []string {
			return []string{floor, "-kubeconfig", kubeconfig, "-concurrent", "-way", "rv0"}
		}},
	}
	taking := []int{rebalancerTool, deschedulerTool, floorSequential, floorConcurrent}
	if *readOnly {
		taking = []int{rebalancerTool, floorSequential, floorConcurrent}
	}
	if *ways {
		taking = append(taking, floorStream, floorRV0)
	}
	printRows := printTable
	if *readOnly {
		printRows = printReadTable
	}

	failed := true
	var cp *harness.ControlPlane
	kc := *kubeconfig
	if kc == "" {
		if cp, err = harness.Start(ctx, nil, harness.Options{}); err != nil {
			return err
		}
		defer func() { cp.Shutdown(failed) }()
		kc = cp.Kubeconfig
	}

	var (
		fill cluster
		rows []row
	)
	for _, s := range sizes {
		if cp != nil {
			start := time.Now()
			if err := fill.grow(ctx, cp, s); err != nil {
				return fmt.Errorf("filling the cluster to %s: %w", s, err)
			}
			logf("%s: cluster filled in %s", s, time.Since(start).Round(time.Second))
		}
		if built != nil {
			if err := <-built; err != nil {
				return err
			}
			built = nil
		}
		r := row{size: s}
		takingNow := taking
		if *deschedulerUpTo > 0 && s.pods > *deschedulerUpTo {
			takingNow = slices.DeleteFunc(slices.Clone(taking), func(t int) bool { return t == deschedulerTool })
		}
		for i := range *rounds {
			// Rotating which goes first spreads over the tools whatever
			// the API server is still doing (compaction, kwok's
			// heartbeats) and whatever the machine's neighbours do.
			for _, t := range rotated(takingNow, i) {
				m, err := measure(ctx, tools[t].name, tools[t].argv(kc))
				if err != nil {
					return fmt.Errorf("%s, %s, round %d: %w", s, tools[t].name, i+1, err)
				}
				logf("%s round %d: %s %s, CPU %s, peak RSS %s, saw %d pods%s", s, i+1, toolNames[t], m.wall.Round(10*time.Millisecond), m.cpu.Round(10*time.Millisecond), figures.MiB(m.peakRSS), m.seen, readPart(m))
				r.runs[t] = append(r.runs[t], m)
			}
		}
		rows = append(rows, r)
		if len(rows) < len(sizes) {
			// The larger sizes take long: the figures so far, meanwhile.
			printRows(os.Stderr, rows, *rounds)
		}
	}
	printRows(out, rows, *rounds)
	if !*readOnly && *deschedulerUpTo > 0 {
		// The sizes without the descheduler, against the floor's goal.
		printReadTable(out, rows, *rounds)
	}
	if *ways {
		printWaysTable(out, rows, *rounds)
	}
	failed = false
	if *hold {
		logf("the control plane keeps running until interrupted: --kubeconfig %s", kc)
		<-ctx.Done()
	}
	return nil
}

// The tools a round runs, as indexes of row.runs.
const (
	rebalancerTool = iota
	deschedulerTool
	floorSequential // the floor, the kinds one after another
	floorConcurrent // the floor, the kinds at once as run reads them
	floorStream     // the floor, the kinds at once by streaming lists
	floorRV0        // the floor, the kinds at once by one LIST each from the watch cache
	toolCount
)

var toolNames = [toolCount]string{"rebalancer", "descheduler", "floor (one kind after another)", "floor (kinds at once)",
	"floor (streaming lists)", "floor (LISTs at resourceVersion 0)"}

// rotated is the order of round i: each tool goes first in turn.
func rotated(tools []int, i int) []int {
	k := i % len(tools)
	return append(append([]int(nil), tools[k:]...), tools[:k]...)
}

// readPart prints run's "Read the cluster" time, for the log of a round.
func readPart(m measurement) string {
	if m.read <= 0 {
		return ""
	}
	return fmt.Sprintf(", read the cluster in %s", m.read.Round(10*time.Millisecond))
}

type tool struct {
	name string
	argv func(kubeconfig string) []string
}

// size is a cluster size: nodes and pods.
type size struct{ nodes, pods int }

func (s size) String() string { return fmt.Sprintf("%d nodes / %d pods", s.nodes, s.pods) }

func parseSizes(s string) ([]size, error) {
	var sizes []size
	for f := range strings.SplitSeq(s, ",") {
		n, p, ok := strings.Cut(strings.TrimSpace(f), "x")
		nodes, err1 := strconv.Atoi(n)
		pods, err2 := strconv.Atoi(p)
		if !ok || err1 != nil || err2 != nil || nodes <= 0 || pods <= 0 {
			return nil, fmt.Errorf("-sizes: %q is not NODESxPODS", f)
		}
		if len(sizes) > 0 && (nodes < sizes[len(sizes)-1].nodes || pods < sizes[len(sizes)-1].pods) {
			return nil, fmt.Errorf("-sizes: %q is smaller than the size before it; the cluster only grows", f)
		}
		sizes = append(sizes, size{nodes, pods})
	}
	return sizes, nil
}

func command(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}
