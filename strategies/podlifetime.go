package strategies

import (
	"fmt"
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

// podLifeTimeName is the strategy's key under strategies: in a policy.
const podLifeTimeName = "PodLifeTime"

func (podLifeTime) Name() string { return podLifeTimeName }

func (s podLifeTime) Run(in *Input) {
	var found []ranked
	in.eachBoundPod(func(p *cluster.Pod) {
		a, ok := in.Args(s.Name(), p).(*policy.PodLifeTimeArgs)
		if !ok {
			return
		}
		age := in.Snapshot.Now.Sub(p.CreationTimestamp.Time)
		maxAge := time.Duration(*a.MaxPodLifeTimeSeconds) * time.Second
		// Whole seconds, as the descheduler compares them: a pod lives
		// past the maximum once it is a second older.
		if age.Truncate(time.Second) <= maxAge {
			return
		}
		state, ok := matchState(p, a.States, a.IncludesInitContainers(), true)
		if !ok {
			return
		}
		reason := fmt.Sprintf("age %s is past maxPodLifeTimeSeconds %d (%s)", age.Round(time.Second), *a.MaxPodLifeTimeSeconds, maxAge)
		if state != "" {
			reason += ", " + state
		}
		found = append(found, ranked{Candidate{Pod: p, Reason: reason}, int64(age)})
	})
	in.offerInOrder(s.Name(), found)
}
