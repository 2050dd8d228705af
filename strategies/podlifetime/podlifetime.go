package podlifetime

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// podLifeTime moves pods older than a maximum age, or in given states,
// conditions or exit codes, oldest first, to bound how long any pod runs
// (leaks, credentials, drift) or to clear pods stuck in a state. Age is
// measured from the snapshot's time; a replacement is new, so the next run
// leaves it alone. Pods of any phase on the policy's nodes count, finished
// ones included (their eviction only deletes them), unless the arguments
// narrow it. Every filter set must match, as in the descheduler.
type podLifeTime struct{}

// Name is the strategy's key under strategies: in a policy.
const Name = "PodLifeTime"

func (podLifeTime) Name() string { return Name }

// PlacementFree: a pod's age, phase and conditions.
func (podLifeTime) PlacementFree(*framework.Cycle) bool { return true }

func (s podLifeTime) Run(in *framework.Cycle) {
	var found []framework.Ranked
	in.EachBoundPod(func(p *cluster.Pod) {
		a, ok := in.Args(s.Name(), p).(*Args)
		if !ok || !ownerKindsSelect(a.OwnerKinds, p) {
			return
		}
		var why []string
		unknownAge := p.CreationTimestamp.IsZero()
		age := in.Snapshot.Now.Sub(p.CreationTimestamp.Time)
		if a.MaxPodLifeTimeSeconds != nil && !unknownAge {
			maxAge := time.Duration(*a.MaxPodLifeTimeSeconds) * time.Second
			// Whole seconds, as the descheduler compares them: a pod
			// lives past the maximum once it is a second older.
			if age.Truncate(time.Second) <= maxAge {
				return
			}
			why = append(why, fmt.Sprintf("age %s is past maxPodLifeTimeSeconds %d (%s)", age.Round(time.Second), *a.MaxPodLifeTimeSeconds, maxAge))
		}
		if len(a.States) > 0 {
			state, ok := lifeTimeState(p, a)
			if !ok {
				return
			}
			why = append(why, state)
		}
		if len(a.Conditions) > 0 {
			cond, ok := matchCondition(p, a.Conditions, in.Snapshot.Now)
			if !ok {
				return
			}
			why = append(why, cond)
		}
		if len(a.ExitCodes) > 0 {
			code, ok := matchExitCode(p, a.ExitCodes, a.IncludesInitContainers())
			if !ok {
				return
			}
			why = append(why, code)
		}
		if a.MaxPodLifeTimeSeconds != nil && unknownAge {
			// A pod without creationTimestamp would otherwise count
			// as older than any maximum.
			in.Mover.Skip(s.Name(), p, framework.Outcome{Category: framework.Protected,
				Reason: "its age is unknown: metadata.creationTimestamp is not set, so maxPodLifeTimeSeconds cannot be compared"})
			return
		}
		if unknownAge {
			age = 0
		}
		found = append(found, framework.Ranked{Candidate: framework.Candidate{Pod: p, Reason: strings.Join(why, ", ")}, Rank: int64(age)})
	})
	in.OfferInOrder(s.Name(), found)
}

// ownerKindsSelect reports whether ownerKinds lets the pod through: with
// include, an owner of one of the kinds; with exclude, none.
func ownerKindsSelect(o *OwnerKinds, p *cluster.Pod) bool {
	switch {
	case o == nil:
		return true
	case len(o.Include) > 0:
		return framework.OwnedByKind(p, o.Include)
	case len(o.Exclude) > 0:
		return !framework.OwnedByKind(p, o.Exclude)
	}
	return true
}

// lifeTimeState returns which of the states the pod is in: its phase, its
// status reason, or a container's waiting or terminated reason (init and
// ephemeral containers' when the arguments say so).
func lifeTimeState(p *cluster.Pod, a *Args) (string, bool) {
	if slices.Contains(a.States, string(p.Status.Phase)) {
		return "phase " + string(p.Status.Phase), true
	}
	if p.Status.Reason != "" && slices.Contains(a.States, p.Status.Reason) {
		return "status reason " + p.Status.Reason, true
	}
	groups := [][]corev1.ContainerStatus{p.Status.ContainerStatuses}
	if a.IncludesInitContainers() {
		groups = append(groups, p.Status.InitContainerStatuses)
	}
	if a.IncludesEphemeralContainers() {
		groups = append(groups, p.Status.EphemeralContainerStatuses)
	}
	for _, statuses := range groups {
		for _, cs := range statuses {
			if w := cs.State.Waiting; w != nil && slices.Contains(a.States, w.Reason) {
				return fmt.Sprintf("container %s is waiting in %s", cs.Name, w.Reason), true
			}
			if t := cs.State.Terminated; t != nil && slices.Contains(a.States, t.Reason) {
				return fmt.Sprintf("container %s terminated with %s", cs.Name, t.Reason), true
			}
		}
	}
	return "", false
}

// matchCondition returns the pod's condition that one of the filters
// matches. A filter with minTimeSinceLastTransitionSeconds matches only a
// condition that has a lastTransitionTime at least that long ago.
func matchCondition(p *cluster.Pod, filters []PodConditionFilter, now time.Time) (string, bool) {
	for _, f := range filters {
		for _, c := range p.Status.Conditions {
			if (f.Type != "" && string(c.Type) != f.Type) || (f.Status != "" && string(c.Status) != f.Status) ||
				(f.Reason != "" && c.Reason != f.Reason) {
				continue
			}
			why := fmt.Sprintf("condition %s=%s", c.Type, c.Status)
			if c.Reason != "" {
				why += " (" + c.Reason + ")"
			}
			if f.MinTimeSinceLastTransitionSeconds != nil {
				if c.LastTransitionTime.IsZero() {
					continue
				}
				since := now.Sub(c.LastTransitionTime.Time)
				if since < 0 || int64(since/time.Second) < *f.MinTimeSinceLastTransitionSeconds {
					continue
				}
				why += fmt.Sprintf(" for %s", since.Round(time.Second))
			}
			return why, true
		}
	}
	return "", false
}

// matchExitCode returns the container that terminated with one of the
// codes, init containers included when asked.
func matchExitCode(p *cluster.Pod, codes []int32, withInit bool) (string, bool) {
	statuses := p.Status.ContainerStatuses
	if withInit {
		statuses = append(slices.Clip(statuses), p.Status.InitContainerStatuses...)
	}
	for _, cs := range statuses {
		if t := cs.State.Terminated; t != nil && slices.Contains(codes, t.ExitCode) {
			return fmt.Sprintf("container %s exited with code %d", cs.Name, t.ExitCode), true
		}
	}
	return "", false
}
