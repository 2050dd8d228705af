package rebalance

import (
	"context"
	"time"

	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/planner"
)

// intents are the evictions the plan is about to make, as the history
// records them.
func (r *Runner) intents(snap *cluster.Snapshot, moves []planner.Move) []cluster.Eviction {
	if r.cfg.History == nil {
		return nil
	}
	now := time.Now()
	out := make([]cluster.Eviction, 0, len(moves))
	for _, m := range moves {
		e := cluster.Eviction{Pod: m.Pod, UID: m.UID, From: m.From, To: m.To, Strategy: m.Strategy, At: now}
		if p := snap.Pod(m.Pod); p != nil {
			e.Workload = p.Workload
		}
		out = append(out, e)
	}
	return out
}

// announce records the evictions before they are made: the cooldown of the
// next cycles and the scheduler's hand-off both read them.
func (r *Runner) announce(ctx context.Context, intents []cluster.Eviction) error {
	if len(intents) == 0 {
		return nil
	}
	return r.cfg.History.Append(ctx, time.Now(), intents)
}

// retract forgets the intents whose eviction did not happen (refused, gone,
// failed, not attempted), so that no cooldown or hand-off follows from them.
func (r *Runner) retract(ctx context.Context, intents []cluster.Eviction, outcomes []evictor.Outcome) error {
	var undone []cluster.Eviction
	for i, o := range outcomes {
		if i < len(intents) && o.Result != evictor.Evicted {
			undone = append(undone, intents[i])
		}
	}
	if len(undone) == 0 {
		return nil
	}
	// Written even when the run is being stopped.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return r.cfg.History.Forget(wctx, time.Now(), undone)
}

// forgetUndone retracts the evictions an earlier run recorded and never
// made (it was killed, or lost the API server, between the two): their pods
// are still where they were. The planner ignores them anyway; a real run
// also removes them, so that the scheduler does not wait for replacements
// that will not come.
func (r *Runner) forgetUndone(ctx context.Context, snap *cluster.Snapshot, past []cluster.Eviction, dryRun bool) error {
	undone := cluster.NotCarriedOut(past, snap)
	if len(undone) == 0 {
		return nil
	}
	klog.InfoS("Evictions an earlier run recorded and never made are forgotten", "evictions", len(undone))
	if dryRun || r.cfg.History == nil {
		return nil
	}
	return r.cfg.History.Forget(ctx, time.Now(), undone)
}
