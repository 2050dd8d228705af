package failedpods

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// failedPods removes pods in the Failed phase: they hold no node, their
// controller has already replaced them (or given up), and they clutter the
// API and hide the pods that matter. Reasons and exit codes narrow it to
// some failures; young failures are kept for a while for whoever debugs
// them. The planner evicts them without placing anything.
type failedPods struct{}

// Name is the strategy's key under strategies: in a policy.
const Name = "RemoveFailedPods"

func (failedPods) Name() string { return Name }

// PlacementFree: a pod's phase, age and exit codes.
func (failedPods) PlacementFree(*framework.Cycle) bool { return true }

func (s failedPods) Run(in *framework.Cycle) {
	var found []framework.Ranked
	in.EachBoundPod(func(p *cluster.Pod) {
		if p.Status.Phase != corev1.PodFailed {
			return
		}
		a, ok := in.Args(s.Name(), p).(*Args)
		if !ok || framework.OwnedByKind(p, a.ExcludeOwnerKinds) {
			return
		}
		// Whole seconds, as the descheduler counts them: a pod exactly
		// minPodLifetimeSeconds old is old enough.
		age := in.Snapshot.Now.Sub(p.CreationTimestamp.Time)
		if minAge := time.Duration(*a.MinPodLifetimeSeconds) * time.Second; age.Truncate(time.Second) < minAge {
			return
		}
		why, ok := failure(p, a)
		if !ok {
			return
		}
		reason := fmt.Sprintf("failed (%s), %s old (minPodLifetimeSeconds %d)", why, age.Round(time.Second), *a.MinPodLifetimeSeconds)
		found = append(found, framework.Ranked{Candidate: framework.Candidate{Pod: p, Reason: reason}, Rank: int64(age)})
	})
	// The oldest first: the longest forgotten.
	in.OfferInOrder(s.Name(), found)
}

// failure describes how the pod failed and reports whether it matches the
// reasons and exit codes (each, when given, must match).
func failure(p *cluster.Pod, a *Args) (string, bool) {
	statuses := p.Status.ContainerStatuses
	if a.IncludesInitContainers() {
		statuses = append(slices.Clip(statuses), p.Status.InitContainerStatuses...)
	}
	var reasons []string
	if p.Status.Reason != "" {
		reasons = append(reasons, p.Status.Reason)
	}
	var codes []string
	reasonOK, codeOK := len(a.Reasons) == 0, len(a.ExitCodes) == 0
	if slices.Contains(a.Reasons, p.Status.Reason) && p.Status.Reason != "" {
		reasonOK = true
	}
	for _, cs := range statuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" {
			reasons = append(reasons, fmt.Sprintf("container %s %s", cs.Name, w.Reason))
			reasonOK = reasonOK || slices.Contains(a.Reasons, w.Reason)
		}
		if t := cs.State.Terminated; t != nil {
			if t.Reason != "" {
				reasons = append(reasons, fmt.Sprintf("container %s %s", cs.Name, t.Reason))
				reasonOK = reasonOK || slices.Contains(a.Reasons, t.Reason)
			}
			codes = append(codes, fmt.Sprintf("container %s exited with code %d", cs.Name, t.ExitCode))
			codeOK = codeOK || slices.Contains(a.ExitCodes, t.ExitCode)
		}
	}
	if !reasonOK || !codeOK {
		return "", false
	}
	why := strings.Join(append(reasons, codes...), ", ")
	if why == "" {
		why = "no reason given"
	}
	return why, true
}
