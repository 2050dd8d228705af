package strategies

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
)

// podLifeTime moves pods older than a maximum age, oldest first, to bound
// how long any pod runs (leaks, credentials, drift). Age is measured from
// the snapshot's time; a replacement is new, so the next run leaves it
// alone. Pods of any phase on the policy's nodes count, finished ones
// included (their eviction only deletes them), unless states narrows it.
type podLifeTime struct{}

func (podLifeTime) Name() string { return policy.PodLifeTime }

func (s podLifeTime) Run(in *Input) {
	type candidate struct {
		pod    *cluster.Pod
		age    time.Duration
		reason string
	}
	selected := make(map[string]bool)
	for _, n := range in.Nodes() {
		selected[n.Name] = true
	}
	var found []candidate
	for _, p := range in.Snapshot.Pods() {
		if !selected[p.Spec.NodeName] {
			continue // not bound, or bound to a node the policy leaves alone
		}
		a, ok := in.Args(s.Name(), p).(*policy.PodLifeTimeArgs)
		if !ok {
			continue
		}
		age := in.Snapshot.Now.Sub(p.CreationTimestamp.Time)
		maxAge := time.Duration(*a.MaxPodLifeTimeSeconds) * time.Second
		// Whole seconds, as the descheduler compares them.
		if age.Truncate(time.Second) <= maxAge {
			continue
		}
		state, ok := matchState(p, a.States, a.IncludesInitContainers(), true)
		if !ok {
			continue
		}
		reason := fmt.Sprintf("age %s is past maxPodLifeTimeSeconds %d (%s)", age.Round(time.Second), *a.MaxPodLifeTimeSeconds, maxAge)
		if state != "" {
			reason += ", " + state
		}
		found = append(found, candidate{p, age, reason})
	}
	slices.SortStableFunc(found, func(a, b candidate) int {
		if a.age != b.age {
			if a.age > b.age {
				return -1
			}
			return 1
		}
		return strings.Compare(a.pod.Key, b.pod.Key)
	})
	for _, c := range found {
		in.move(s.Name(), Candidate{Pod: c.pod, Reason: c.reason})
	}
}
