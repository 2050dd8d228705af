package rebalance

import (
	"time"

	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/report"
)

// Windows decides what the policy's disruption windows allow at an
// instant. It returns the policy a plan made then goes by (the limits of
// the open windows applied) and the decision, nil when the policy has no
// windows.
func Windows(pol *policy.Policy, at time.Time) (*policy.Policy, *policy.WindowDecision) {
	d := pol.WindowsAt(at)
	return pol.During(d), d
}

// NoteWindows puts a decision of Windows in a report.
func NoteWindows(rep *report.Report, d *policy.WindowDecision) {
	if rep == nil || d == nil {
		return
	}
	w := &report.Windows{At: d.At.UTC(), Evict: d.Evict, Open: d.Open, Note: d.Note}
	if !d.Next.IsZero() {
		w.Next = d.Next.UTC()
	}
	rep.DisruptionWindows = w
}

// nextCycle returns how long the loop waits after a cycle that ended at
// now: the interval, unless the windows allow no eviction at its end; then
// until they next allow evictions after now, so that the loop sleeps
// through the time it could only plan, and wakes sooner for a window that
// opens and closes within the interval. until is when it wakes, zero when
// it waits the interval.
func nextCycle(pol *policy.Policy, now time.Time, interval time.Duration) (wait time.Duration, until time.Time) {
	if d := pol.WindowsAt(now.Add(interval)); d == nil || d.Evict {
		return interval, time.Time{}
	}
	next := pol.NextEvictions(now)
	if next.IsZero() {
		// Every cycle says why it evicts nothing.
		return interval, time.Time{}
	}
	return next.Sub(now), next
}

// logWindows says at the default level what the windows allow this cycle.
func logWindows(d *policy.WindowDecision) {
	switch {
	case d == nil:
	case d.Evict:
		klog.InfoS("The disruption windows allow evictions", "why", d.Note)
	default:
		klog.InfoS("The disruption windows allow no eviction now: this cycle plans and reports as a dry run, and evicts nothing", "why", d.Note)
	}
}
