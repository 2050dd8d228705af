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
// fraction of the descheduler's (issue 37's).
type target struct{ wall, rss float64 }

var deschedulerTarget = target{wall: 0.5, rss: 0.15}

// seenShare is the share of the cluster's pods a descheduler round must
// have planned on for the ratios to count it: its dry run plans on what
// its informers happened to fill before its one cycle, anywhere from none
// of the pods to all, and a round that saw few did less work.
const seenShare = 0.95

// qualifying returns the rounds that saw at least seenShare of s's pods.
func qualifying(ms []measurement, s size) []measurement {
	var q []measurement
	for _, m := range ms {
		if float64(m.seen) >= seenShare*float64(s.pods) {
			q = append(q, m)
		}
	}
	return q
}

func printTable(out io.Writer, rows []row, rounds int) {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "nodes\tpods\tdescheduler rounds seeing ≥95%%\trebalancer wall\tdescheduler wall\tratio (target)\trebalancer RSS\tdescheduler RSS\tratio (target)\trebalancer CPU\tdescheduler CPU\tratio\tpods seen (fewest)\tfloor wall\twall / floor\tread / floor\n")
	t := deschedulerTarget
	for _, r := range rows {
		rw, rc, rr := medians(r.runs[rebalancerTool])
		q := qualifying(r.runs[deschedulerTool], r.size)
		fw := floorWall(r)
		// The descheduler's wall, RSS and CPU, each with its ratio.
		dcols := []string{"-", "no round qualified", "-", "no round qualified", "-", "no round qualified"}
		if len(q) > 0 {
			dw, dc, dr := medians(q)
			dcols = []string{dw.Round(10 * time.Millisecond).String(), ratio(float64(rw), float64(dw), t.wall),
				figures.MiB(dr), ratio(float64(rr), float64(dr), t.rss),
				dc.Round(10 * time.Millisecond).String(), ratio(float64(rc), float64(dc), 0)}
		}
		fmt.Fprintf(w, "%d\t%d\t%d of %d\t%v\t%s\t%s\t%s\t%s\t%s\t%v\t%s\t%s\t%d / %d\t%v\t%s\t%s\n", r.size.nodes, r.size.pods,
			len(q), len(r.runs[deschedulerTool]),
			rw.Round(10*time.Millisecond), dcols[0], dcols[1],
			figures.MiB(rr), dcols[2], dcols[3],
			rc.Round(10*time.Millisecond), dcols[4], dcols[5],
			fewestSeen(r.runs[rebalancerTool]), fewestSeen(r.runs[deschedulerTool]),
			fw.Round(10*time.Millisecond), ratio(float64(rw), float64(fw), 0), ratio(float64(medianRead(r.runs[rebalancerTool])), float64(fw), 0))
	}
	_ = w.Flush()
	fmt.Fprintf(out, "(medians of %d rounds, the tools taking turns; both run dry with test/bench/every-strategy-descheduler.yaml;\n the descheduler's columns and the ratios are the medians of its rounds that planned on at least 95%% of the pods,\n by its log (pods seen: the fewest pods on nodes a round of each tool planned on); CPU is the process's user and system time;\n floor: the faster of a bare reader's two ways, read: rebalancer's \"Read the cluster\" time)\n", rounds)
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

// printWaysTable sets the floor's ways of reading against its paginated
// LIST with the kinds at once, as run reads: medians, the fastest and
// slowest round, and the ratio of the medians.
func printWaysTable(out io.Writer, rows []row, rounds int) {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "nodes\tpods\tfloor way\twall\t(range)\tRSS\tCPU\twall / paginated LIST\tpods seen (fewest)\n")
	for _, r := range rows {
		base, _, _ := medians(r.runs[floorConcurrent])
		for _, t := range []int{floorConcurrent, floorSequential, floorStream, floorRV0} {
			ms := r.runs[t]
			if len(ms) == 0 {
				continue
			}
			wall, cpu, rss := medians(ms)
			lo, hi := ms[0].wall, ms[0].wall
			for _, m := range ms {
				lo, hi = min(lo, m.wall), max(hi, m.wall)
			}
			fmt.Fprintf(w, "%d\t%d\t%s\t%v\t(%v–%v)\t%s\t%v\t%s\t%d\n", r.size.nodes, r.size.pods, toolNames[t],
				wall.Round(10*time.Millisecond), lo.Round(10*time.Millisecond), hi.Round(10*time.Millisecond),
				figures.MiB(rss), cpu.Round(10*time.Millisecond), ratio(float64(wall), float64(base), 0), fewestSeen(ms))
		}
	}
	_ = w.Flush()
	fmt.Fprintf(out, "(medians of %d rounds, each way a process of its own, taking turns with the others; ratios of the\n paginated LIST with the kinds at once; streaming lists: watches with sendInitialEvents up to the bookmark that\n ends them; resourceVersion 0: one LIST a kind, which the API server serves whole from its watch cache)\n", rounds)
}
