package rebalance

import (
	"time"

	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/planner"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
)

// Planning takes a snapshot to its plan. `rebalancer plan` and every cycle
// of `rebalancer run` go through it, so that a dump of a cluster and the
// cluster itself, at the same instant, give the same plan; they differ only
// in where the snapshot and the earlier evictions come from.
type Planning struct {
	Policy *policy.Policy
	// Placer simulates where each evicted pod would go.
	Placer engine.Placer
	// Source names where the snapshot was read in errors: a dump's path,
	// or "the cluster".
	Source string
	// History returns the evictions earlier runs recorded, for the
	// cooldown. It is called once the policy is known to suit the
	// snapshot, so that nothing is written for a policy that is refused;
	// nil: no earlier evictions.
	History func(*cluster.Snapshot) ([]cluster.Eviction, error)
	// Observations returns the counts of consecutive observations earlier
	// runs made (the state ConfigMap's, or a loop's own), asked only when a
	// strategy of the policy counts them, after History; nil: none.
	Observations func() []cluster.Observation
	// Holds returns the nodes earlier runs hold for pending pods, asked
	// after History; nil: none. Each live hold's pod counts as nominated
	// to its node in the snapshot (cluster.Snapshot.ApplyHolds).
	Holds func() []cluster.Hold
	// LogLevel is the verbosity of the log line that sums up the plan.
	LogLevel klog.Level
	// StrategyTime, when set, is told how long each run of a strategy took
	// (planner.Planner.StrategyTime).
	StrategyTime func(strategy string, took time.Duration)
}

// Plan checks the policy against the snapshot, reads the earlier evictions
// and holds, and plans; the holds mark their pods nominated in snap. The error is the policy's (*policy.Error) when the snapshot
// lacks a PriorityClass the policy names, else History's.
func (p Planning) Plan(snap *cluster.Snapshot) (*planner.Plan, error) {
	if err := CheckPriorityClasses(p.Policy, snap, p.Source); err != nil {
		return nil, err
	}
	LogStrays(snap)
	var past []cluster.Eviction
	if p.History != nil {
		var err error
		if past, err = p.History(snap); err != nil {
			return nil, err
		}
	}
	if p.Holds != nil {
		if n := snap.ApplyHolds(p.Holds()); n > 0 {
			klog.InfoS("Pending pods for which earlier runs hold a node count as nominated there", "pods", n)
		}
	}
	var earlier []cluster.Observation
	if p.Observations != nil && p.Policy.CountsObservations() {
		earlier = p.Observations()
	}
	start := time.Now()
	plan := (&planner.Planner{Policy: p.Policy, Placer: p.Placer, History: past, Observations: earlier, StrategyTime: p.StrategyTime}).Plan(snap)
	klog.V(p.LogLevel).InfoS("Planned", "nodes", len(snap.Nodes()), "pods", len(snap.Pods()),
		"moves", len(plan.Moves), "skipped", len(plan.Skipped), "took", time.Since(start).Round(time.Millisecond))
	return plan, nil
}
