package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/kube-rebalancer/rebalancer/test/bench/figures"
)

// row holds one size's measurements, indexed by tool (rebalancerTool...).
type row struct {
	size size
	runs [toolCount][]measurement
}

// floorGoal is what run's time may be at most, as a multiple of the floor's.
const floorGoal = 1.3

// floorWall is the faster of the floor's two ways of reading, by the median
// of its rounds; zero when it did not run.
func floorWall(r row) time.Duration {
	var best time.Duration
	for _, t := range []int{floorSequential, floorConcurrent} {
		if len(r.runs[t]) == 0 {
			continue
		}
		if w, _, _ := medians(r.runs[t]); best == 0 || w < best {
			best = w
		}
	}
	return best
}

// medianRead is the median of run's "Read the cluster" times.
func medianRead(ms []measurement) time.Duration {
	reads := make([]time.Duration, len(ms))
	for i, m := range ms {
		reads[i] = m.read
	}
	return figures.Median(reads)
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
	fmt.Fprintf(w, "nodes\tpods\trebalancer wall\tdescheduler wall\tratio (target)\trebalancer RSS\tdescheduler RSS\tratio (target)\trebalancer CPU\tdescheduler CPU\tratio\tpods seen (fewest)\tfloor wall\twall / floor\tread / floor\n")
	for _, r := range rows {
		rw, rc, rr := medians(r.runs[rebalancerTool])
		dw, dc, dr := medians(r.runs[deschedulerTool])
		fw := floorWall(r)
		t := targetAt(r.size)
		fmt.Fprintf(w, "%d\t%d\t%v\t%v\t%s\t%s\t%s\t%s\t%v\t%v\t%s\t%d / %d\t%v\t%s\t%s\n", r.size.nodes, r.size.pods,
			rw.Round(10*time.Millisecond), dw.Round(10*time.Millisecond), ratio(float64(rw), float64(dw), t.wall),
			figures.MiB(rr), figures.MiB(dr), ratio(float64(rr), float64(dr), t.rss),
			rc.Round(10*time.Millisecond), dc.Round(10*time.Millisecond), ratio(float64(rc), float64(dc), 0),
			fewestSeen(r.runs[rebalancerTool]), fewestSeen(r.runs[deschedulerTool]),
			fw.Round(10*time.Millisecond), ratio(float64(rw), float64(fw), 0), ratio(float64(medianRead(r.runs[rebalancerTool])), float64(fw), 0))
	}
	_ = w.Flush()
	fmt.Fprintf(out, "(medians of %d rounds, the tools taking turns; both run dry with test/bench/every-strategy-descheduler.yaml;\n CPU is the process's user and system time; pods seen: the fewest pods on nodes a round of each tool planned on,\n by its log; a tool that saw fewer than the cluster holds did less work than the other;\n floor: the faster of a bare reader's two ways, read: rebalancer's \"Read the cluster\" time)\n", rounds)
}

// printReadTable prints run's time against the floor's, with the goal.
func printReadTable(out io.Writer, rows []row, rounds int) {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "nodes\tpods\tfloor wall (one kind after another)\tfloor wall (kinds at once)\tfloor RSS\tfloor CPU\trebalancer wall\tread\trebalancer RSS\trebalancer CPU\twall / floor (goal)\tread / floor (goal)\tpods seen (fewest)\n")
	for _, r := range rows {
		sw, _, _ := medians(r.runs[floorSequential])
		cw, cc, cr := medians(r.runs[floorConcurrent])
		rw, rc, rr := medians(r.runs[rebalancerTool])
		fw := floorWall(r)
		fmt.Fprintf(w, "%d\t%d\t%v\t%v\t%s\t%v\t%v\t%v\t%s\t%v\t%s\t%s\t%d / %d\n", r.size.nodes, r.size.pods,
			sw.Round(10*time.Millisecond), cw.Round(10*time.Millisecond), figures.MiB(cr), cc.Round(10*time.Millisecond),
			rw.Round(10*time.Millisecond), medianRead(r.runs[rebalancerTool]).Round(10*time.Millisecond),
			figures.MiB(rr), rc.Round(10*time.Millisecond),
			ratio(float64(rw), float64(fw), floorGoal), ratio(float64(medianRead(r.runs[rebalancerTool])), float64(fw), floorGoal),
			fewestSeen(r.runs[rebalancerTool]), min(fewestSeen(r.runs[floorSequential]), fewestSeen(r.runs[floorConcurrent])))
	}
	_ = w.Flush()
	fmt.Fprintf(out, "(medians of %d rounds, run --dry-run and the floor's two ways taking turns; the floor lists what run lists,\n in protobuf and in run's pages, and keeps nothing; its RSS and CPU are those of the kinds read at once;\n ratios are of the faster floor; read: rebalancer's \"Read the cluster\" time; pods seen: rebalancer / floor)\n", rounds)
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
