// Package maxage is a strategy written outside rebalancer, as an example of
// an out-of-tree strategy: it moves the pods that have outlived a maximum
// age their own workload sets, in an annotation, so that each team opts in
// with the age its pods may reach (a slow leak, credentials read at start)
// rather than the policy setting one age for every pod, as PodLifeTime does.
package maxage

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// Strategy moves pods past the maximum age of their annotation, the
// furthest past it first, so that the cycle's limits go to those.
type Strategy struct{}

// Name returns the strategy's key.
func (Strategy) Name() string { return Name }

// Run proposes every pod past its maximum age. A pod whose annotation is
// no positive duration is left alone, with a note in the report, rather
// than guessed at.
func (Strategy) Run(in *framework.Cycle) {
	selected := make(map[string]bool)
	for _, n := range in.Nodes() {
		selected[n.Name] = true
	}
	type overdue struct {
		c    framework.Candidate
		over time.Duration
	}
	var found []overdue
	for _, p := range in.Snapshot.Pods() {
		if !selected[p.Spec.NodeName] || p.IsTerminal() || p.IsTerminating() || p.CreationTimestamp.IsZero() {
			continue
		}
		a, ok := in.Args(Name, p).(*Args)
		if !ok {
			continue
		}
		maxAge, ok := annotatedMaxAge(in, p, a)
		if !ok {
			continue
		}
		age := in.Snapshot.Now.Sub(p.CreationTimestamp.Time)
		if age <= maxAge {
			continue
		}
		reason := fmt.Sprintf("age %s is past its %s %s", short(age), a.Annotation, short(maxAge))
		if asked := p.Annotations[a.Annotation]; a.MinMaxAge != nil && maxAge == a.MinMaxAge.Duration && asked != short(maxAge) {
			reason += fmt.Sprintf(" (%s raised to minMaxAge)", asked)
		}
		found = append(found, overdue{framework.Candidate{Pod: p, Reason: reason}, age - maxAge})
	}
	slices.SortFunc(found, func(x, y overdue) int {
		if c := cmp.Compare(y.over, x.over); c != 0 {
			return c
		}
		return cmp.Compare(x.c.Pod.Key, y.c.Pod.Key)
	})
	for _, f := range found {
		if in.Done() {
			return
		}
		in.Move(Name, f.c)
	}
}

// annotatedMaxAge returns the pod's maximum age, raised to the floor, and
// false when the pod carries no annotation or one that is no positive
// duration.
func annotatedMaxAge(in *framework.Cycle, p *cluster.Pod, a *Args) (time.Duration, bool) {
	v, ok := p.Annotations[a.Annotation]
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		in.Note(Name, "", fmt.Sprintf("pod %s: %s %q is not a positive duration such as 24h; the pod is left alone", p.Key, a.Annotation, v))
		return 0, false
	}
	if a.MinMaxAge != nil {
		d = max(d, a.MinMaxAge.Duration)
	}
	return d, true
}

// short writes a duration to the minute, without the zero units Go
// appends: 72h, 1h30m.
func short(d time.Duration) string {
	s := d.Round(time.Minute).String()
	s = strings.TrimSuffix(s, "0s")
	return strings.TrimSuffix(strings.Replace(s, "h0m", "h", 1), "m0")
}
