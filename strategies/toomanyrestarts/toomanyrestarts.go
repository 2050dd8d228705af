package toomanyrestarts

import (
	"fmt"
	"slices"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// tooManyRestarts moves pods whose containers keep restarting, in the hope
// that another node serves them better: a volume that will not attach
// there, a node-specific fault, a crash loop. The restarts of all the pod's
// containers add up; the replacement starts from zero, so the next run does
// not move it again.
type tooManyRestarts struct{}

// Name is the strategy's key under strategies: in a policy.
const Name = "RemovePodsHavingTooManyRestarts"

func (tooManyRestarts) Name() string { return Name }

// PlacementFree: a pod's restart counts.
func (tooManyRestarts) PlacementFree(*framework.Cycle) bool { return true }

func (s tooManyRestarts) Run(in *framework.Cycle) {
	var found []framework.Ranked
	for _, n := range in.Nodes() {
		for _, p := range n.Pods() {
			a, ok := in.Args(s.Name(), p).(*Args)
			if !ok {
				continue
			}
			restarts := p.Restarts(a.IncludesInitContainers())
			if restarts < a.PodRestartThreshold {
				continue
			}
			state, ok := matchState(p, a.States, a.IncludesInitContainers())
			if !ok {
				continue
			}
			reason := fmt.Sprintf("restarted %d times (threshold %d)", restarts, a.PodRestartThreshold)
			if len(a.States) > 0 {
				reason += ", " + state
			}
			found = append(found, framework.Ranked{Candidate: framework.Candidate{Pod: p, Reason: reason}, Rank: int64(restarts)})
		}
	}
	// The most restarted first.
	in.OfferInOrder(s.Name(), found)
}

// matchState reports whether the pod is in one of the states: its phase, or
// the reason one of its containers (init containers too, when withInit) is
// waiting. No states matches every pod. The string names the state that
// matched.
func matchState(p *cluster.Pod, states []string, withInit bool) (string, bool) {
	if len(states) == 0 {
		return "", true
	}
	if slices.Contains(states, string(p.Status.Phase)) {
		return "phase " + string(p.Status.Phase), true
	}
	statuses := p.Status.ContainerStatuses
	if withInit {
		statuses = append(slices.Clip(statuses), p.Status.InitContainerStatuses...)
	}
	for _, cs := range statuses {
		if w := cs.State.Waiting; w != nil && slices.Contains(states, w.Reason) {
			return fmt.Sprintf("container %s is waiting in %s", cs.Name, w.Reason), true
		}
	}
	return "", false
}
