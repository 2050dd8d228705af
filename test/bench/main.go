// Command bench measures `rebalancer plan --snapshot` on generated dumps of
// growing clusters (30 pods a node) with every strategy but the one that
// packs nodes, and no limits (every-strategy.yaml), and prints the
// planning time (the `Planned … took=` line), the wall time and the peak
// RSS of the whole process, medians of several runs, and whether they grow
// within n·log n in pods, from each size to the next and over the whole
// range. It also prints how many moves each plan made: the work a plan
// does depends on the cluster, not only on its size, and runs of one size
// that plan differently are an error. `make bench` runs it; the dumps are
// cached, as writing a 10,000-node dump takes minutes.
//
//	go run ./test/bench -nodes 1000,2000,5000,10000 -runs 3
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/kube-rebalancer/rebalancer/cluster/synthetic"
	"github.com/kube-rebalancer/rebalancer/test/bench/figures"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// dumpVersion names the dumps' generation in the cache: change it when the
// generator or the dump writer changes what they write.
const dumpVersion = 3

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	sizes := fs.String("nodes", "1000,2000,5000,10000", "cluster sizes in nodes, comma-separated")
	podsPerNode := fs.Int("pods-per-node", 30, "pods per node")
	runs := fs.Int("runs", 3, "runs per size; the table shows medians")
	binary := fs.String("rebalancer", "", "the rebalancer binary (default: built from ./cmd/rebalancer)")
	cache := fs.String("cache", defaultCache(), "where the dumps are kept between runs")
	policy := fs.String("policy", "test/bench/every-strategy.yaml", "the policy")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var nodes []int
	for f := range strings.SplitSeq(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return fmt.Errorf("-nodes: %q is not a number of nodes", f)
		}
		nodes = append(nodes, n)
	}
	if *binary == "" {
		dir, err := os.MkdirTemp("", "rebalancer-bench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		*binary = filepath.Join(dir, "rebalancer")
		build := exec.Command("go", "build", "-o", *binary, "./cmd/rebalancer")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building rebalancer: %w", err)
		}
	}
	if err := os.MkdirAll(*cache, 0o755); err != nil {
		return err
	}
	var rows []row
	for _, n := range nodes {
		r := row{nodes: n, pods: n * *podsPerNode}
		dump, err := cachedDump(*cache, r.nodes, r.pods)
		if err != nil {
			return err
		}
		st, err := os.Stat(dump)
		if err != nil {
			return err
		}
		r.dumpBytes = st.Size()
		var plans, walls []time.Duration
		var rss []int64
		for range *runs {
			m, err := measure(*binary, dump, *policy)
			if err != nil {
				return fmt.Errorf("%d nodes: %w", n, err)
			}
			plans, walls, rss = append(plans, m.planning), append(walls, m.wall), append(rss, m.peakRSS)
			if len(plans) > 1 && m.moves != r.moves {
				// The same dump and policy give the same plan.
				return fmt.Errorf("%d nodes: one run planned %d moves, another %d", n, r.moves, m.moves)
			}
			r.moves = m.moves
		}
		r.planning, r.wall, r.peakRSS = figures.Median(plans), figures.Median(walls), figures.Median(rss)
		rows = append(rows, r)
		fmt.Fprintf(os.Stderr, "%d nodes: planning %v, wall %v, peak RSS %s, %d moves\n", n, r.planning, r.wall, figures.MiB(r.peakRSS), r.moves)
	}
	printTable(out, rows, *runs, *policy)
	return nil
}

type row struct {
	nodes, pods    int
	moves          int
	dumpBytes      int64
	planning, wall time.Duration
	peakRSS        int64
}

func defaultCache() string {
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "rebalancer", "bench")
	}
	return filepath.Join(os.TempDir(), "rebalancer-bench")
}

// cachedDump writes the dump of a cluster of the given size unless the
// cache holds it.
func cachedDump(cache string, nodes, pods int) (string, error) {
	path := filepath.Join(cache, fmt.Sprintf("v%d-nodes%d-pods%d-seed1.yaml", dumpVersion, nodes, pods))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	fmt.Fprintf(os.Stderr, "writing the dump of %d nodes and %d pods to %s\n", nodes, pods, path)
	tmp, err := os.CreateTemp(cache, "dump-*.yaml")
	if err != nil {
		return "", err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	objs := synthetic.Generate(synthetic.Spec{Seed: 1, Nodes: nodes, Zones: 3, Pods: pods})
	err = synthetic.WriteList(tmp, objs, synthetic.DumpOptions{Served: true})
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	return path, os.Rename(tmp.Name(), path)
}

type measurement struct {
	planning, wall time.Duration
	peakRSS        int64 // bytes
	moves          int
}

var plannedLine = regexp.MustCompile(`"Planned".* moves=(\d+) .*took="([^"]+)"`)

// measure runs one plan, as a user runs it, and reads the planning time
// from its log and the peak RSS from the kernel's accounting of the child.
func measure(binary, dump, policy string) (measurement, error) {
	cmd := exec.Command(binary, "plan", "--snapshot", dump, "--policy", policy, "--now", "2026-01-01T00:00:00Z", "-o", "json", "-v=1")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return measurement{}, fmt.Errorf("%w: %s", err, figures.LastLines(stderr.String(), 5))
	}
	m := plannedLine.FindStringSubmatch(stderr.String())
	if m == nil {
		return measurement{}, errors.New("no Planned line in the log")
	}
	moves, err := strconv.Atoi(m[1])
	if err != nil {
		return measurement{}, err
	}
	planning, err := time.ParseDuration(m[2])
	if err != nil {
		return measurement{}, err
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return measurement{}, errors.New("no resource usage of the child on this system")
	}
	return measurement{planning: planning, wall: wall, peakRSS: ru.Maxrss * 1024, moves: moves}, nil
}

// nlogn is the growth allowed from pods a to pods b.
func nlogn(a, b int) float64 {
	return float64(b) * math.Log(float64(b)) / (float64(a) * math.Log(float64(a)))
}

func printTable(out io.Writer, rows []row, runs int, policy string) {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "nodes\tpods\tmoves\tdump\tplanning\twall\tpeak RSS\tRSS/dump\n")
	for _, r := range rows {
		fmt.Fprintf(w, "%d\t%d\t%d\t%s\t%v\t%v\t%s\t%.2f×\n", r.nodes, r.pods, r.moves, figures.MiB(r.dumpBytes), r.planning.Round(time.Millisecond),
			r.wall.Round(10*time.Millisecond), figures.MiB(r.peakRSS), float64(r.peakRSS)/float64(r.dumpBytes))
	}
	_ = w.Flush()
	fmt.Fprintf(out, "(medians of %d runs; policy %s)\n", runs, policy)
	bw := bufio.NewWriter(out)
	defer func() { _ = bw.Flush() }()
	// Each step, then the whole range: a step's ratio moves with the
	// plans' contents (a generated cluster of one size is not a scaled
	// copy of another), the whole range less.
	steps := make([][2]row, 0, len(rows))
	for i := 1; i < len(rows); i++ {
		steps = append(steps, [2]row{rows[i-1], rows[i]})
	}
	if len(rows) > 2 {
		steps = append(steps, [2]row{rows[0], rows[len(rows)-1]})
	}
	for _, step := range steps {
		a, b := step[0], step[1]
		allowed := nlogn(a.pods, b.pods)
		for _, q := range []struct {
			name string
			x, y float64
		}{
			{"planning", float64(a.planning), float64(b.planning)},
			{"wall", float64(a.wall), float64(b.wall)},
			{"peak RSS", float64(a.peakRSS), float64(b.peakRSS)},
		} {
			growth := q.y / q.x
			verdict := "within n·log n"
			if growth > allowed {
				verdict = "grows FASTER than n·log n"
			}
			fmt.Fprintf(bw, "%d → %d pods: %s ×%.2f (n·log n allows ×%.2f): %s\n", a.pods, b.pods, q.name, growth, allowed, verdict)
		}
	}
}
