package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"
)

// printTable prints each scheduler's medians over the rounds, then the
// ratio of rebalancer's to kube-scheduler's.
func printTable(out io.Writer, c config, results map[string][]phase) {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "scheduler\tnodes\tpods\tcreated in\tstarted\tfirst bound\tlast bound\tpods/s created→bound\tpods/s bind phase")
	type medians struct{ total, binding float64 }
	m := map[string]medians{}
	for _, name := range []string{kubeScheduler{}.name(), rebalancerScheduler{}.name()} {
		phases := results[name]
		md := medians{
			total:   median(phases, phase.total),
			binding: median(phases, phase.binding),
		}
		m[name] = md
		fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%.1f\t%.1f\n", name, c.nodes, c.pods,
			medianDuration(phases, func(p phase) time.Duration { return p.created }),
			medianDuration(phases, func(p phase) time.Duration { return p.started }),
			medianDuration(phases, func(p phase) time.Duration { return p.firstBound }),
			medianDuration(phases, func(p phase) time.Duration { return p.lastBound }),
			md.total, md.binding)
	}
	w.Flush()
	k, r := m[kubeScheduler{}.name()], m[rebalancerScheduler{}.name()]
	fmt.Fprintf(out, "rebalancer/kube-scheduler: %.2f× created→bound, %.2f× bind phase\n", r.total/k.total, r.binding/k.binding)
	fmt.Fprintf(out, "(medians of %d rounds; both schedulers with client qps %g, burst %d; times from the first pod created;\n"+
		" each scheduler is started once its pods are all pending; bind phase: first bound to last bound)\n", c.rounds, c.qps, c.burst)
}

func median(phases []phase, f func(phase) float64) float64 {
	xs := make([]float64, len(phases))
	for i, p := range phases {
		xs[i] = f(p)
	}
	slices.Sort(xs)
	if len(xs) == 0 {
		return 0
	}
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}

func medianDuration(phases []phase, f func(phase) time.Duration) time.Duration {
	return time.Duration(median(phases, func(p phase) float64 { return float64(f(p)) })).Round(time.Millisecond)
}
