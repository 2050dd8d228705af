package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/kube-rebalancer/rebalancer/test/bench/figures"
)

// row holds one size's measurements: runs[0] rebalancer's, runs[1] the
// descheduler's.
type row struct {
	size size
	runs [2][]measurement
}

// target is what rebalancer's time and peak RSS may be at most, as a
// fraction of the descheduler's, at a size: tighter on the larger
// cluster, where the descheduler's cost grows faster than the cluster.
type target struct{ wall, rss float64 }

func targetAt(s size) target {
	if s.pods >= 40000 {
		return target{wall: 0.02, rss: 0.2}
	}
	return target{wall: 0.1, rss: 0.3}
}

func printTable(out io.Writer, rows []row, rounds int) {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "nodes\tpods\trebalancer wall\tdescheduler wall\tratio (target)\trebalancer RSS\tdescheduler RSS\tratio (target)\trebalancer CPU\tdescheduler CPU\tratio\tpods seen (fewest)\n")
	for _, r := range rows {
		rw, rc, rr := medians(r.runs[0])
		dw, dc, dr := medians(r.runs[1])
		t := targetAt(r.size)
		fmt.Fprintf(w, "%d\t%d\t%v\t%v\t%s\t%s\t%s\t%s\t%v\t%v\t%s\t%d / %d\n", r.size.nodes, r.size.pods,
			rw.Round(10*time.Millisecond), dw.Round(10*time.Millisecond), ratio(float64(rw), float64(dw), t.wall),
			figures.MiB(rr), figures.MiB(dr), ratio(float64(rr), float64(dr), t.rss),
			rc.Round(10*time.Millisecond), dc.Round(10*time.Millisecond), ratio(float64(rc), float64(dc), 0),
			fewestSeen(r.runs[0]), fewestSeen(r.runs[1]))
	}
	_ = w.Flush()
	fmt.Fprintf(out, "(medians of %d rounds, the two tools alternating; both run dry with test/bench/every-strategy-descheduler.yaml;\n CPU is the process's user and system time; pods seen: the fewest pods on nodes a round of each tool planned on,\n by its log; a tool that saw fewer than the cluster holds did less work than the other)\n", rounds)
}

// ratio prints a/b and whether it meets the target, if there is one.
func ratio(a, b, want float64) string {
	if b == 0 {
		return "n/a"
	}
	r := a / b
	if want == 0 {
		return fmt.Sprintf("%.3f×", r)
	}
	verdict := "met"
	if r > want {
		verdict = "MISSED"
	}
	return fmt.Sprintf("%.3f× (≤%g× %s)", r, want, verdict)
}

// fewestSeen is the fewest pods a round's log says the tool saw.
func fewestSeen(ms []measurement) int {
	fewest := -1
	for i, m := range ms {
		if i == 0 || m.seen < fewest {
			fewest = m.seen
		}
	}
	return fewest
}

func medians(ms []measurement) (wall, cpu time.Duration, rss int64) {
	walls := make([]time.Duration, len(ms))
	cpus := make([]time.Duration, len(ms))
	peaks := make([]int64, len(ms))
	for i, m := range ms {
		walls[i], cpus[i], peaks[i] = m.wall, m.cpu, m.peakRSS
	}
	return figures.Median(walls), figures.Median(cpus), figures.Median(peaks)
}
