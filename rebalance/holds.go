package rebalance

import (
	"context"
	"slices"
	"time"

	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/planner"
)

// holding tracks the plan's placements as holds in the state: each is
// recorded before the first step that moves a pod off its node, so that
// the schedulers keep the room those moves free for the pending pod from
// the moment it starts to free.
type holding struct {
	holds []cluster.Hold
	// step is, by hold, the index of the step it is recorded before.
	step []int
	// recorded and freed tell, by hold, whether it is in the state, and
	// whether a move off its node was carried out.
	recorded, freed []bool
}

// newHolding plans the holds of a plan's placements: none without a
// state to record them in.
func (r *Runner) newHolding(snap *cluster.Snapshot, plan *planner.Plan, all [][]planner.Move) *holding {
	h := &holding{}
	if r.cfg.History == nil {
		return h
	}
	now := time.Now()
	for _, pl := range plan.Placements {
		p := snap.Pod(pl.Pod)
		if p == nil {
			continue
		}
		step := 0
		for i, s := range all {
			if slices.ContainsFunc(s, func(m planner.Move) bool { return m.From == pl.Node }) {
				step = i
				break
			}
		}
		h.holds = append(h.holds, cluster.Hold{Pod: pl.Pod, UID: p.UID, Node: pl.Node, Priority: p.Priority, Strategy: pl.Strategy, At: now})
		h.step = append(h.step, step)
	}
	h.recorded = make([]bool, len(h.holds))
	h.freed = make([]bool, len(h.holds))
	return h
}

// recordHolds writes the holds due before step i.
func (r *Runner) recordHolds(ctx context.Context, h *holding, i int) error {
	var due []cluster.Hold
	var idx []int
	for k, hold := range h.holds {
		if h.step[k] == i && !h.recorded[k] {
			hold.At = time.Now()
			due = append(due, hold)
			idx = append(idx, k)
		}
	}
	if len(due) == 0 {
		return nil
	}
	if err := r.cfg.History.RecordHolds(ctx, due); err != nil {
		return err
	}
	for j, k := range idx {
		h.recorded[k] = true
		h.holds[k] = due[j]
	}
	klog.InfoS("Holding the nodes the plan frees for pending pods", "holds", len(due))
	return nil
}

// carriedOut notes the moves that left a held node.
func (h *holding) carriedOut(outs []evictor.Outcome) {
	for _, o := range outs {
		if o.Result != evictor.Evicted && o.Result != evictor.Surged {
			continue
		}
		for k := range h.holds {
			if h.holds[k].Node == o.Move.From {
				h.freed[k] = true
			}
		}
	}
}

// releaseHolds forgets the recorded holds whose node no move of the run
// freed: the pod would wait for room that does not come.
func (r *Runner) releaseHolds(ctx context.Context, h *holding) error {
	var drop []cluster.Hold
	for k, hold := range h.holds {
		if h.recorded[k] && !h.freed[k] {
			drop = append(drop, hold)
		}
	}
	if len(drop) == 0 {
		return nil
	}
	klog.InfoS("No move freed the nodes held for pending pods; the holds are forgotten", "holds", len(drop))
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return r.cfg.History.ForgetHolds(wctx, func(o cluster.Hold) bool {
		return slices.ContainsFunc(drop, func(d cluster.Hold) bool { return d.Pod == o.Pod && d.UID == o.UID && d.At.Equal(o.At) })
	})
}

// forgetOverHolds forgets the holds earlier runs recorded that hold
// nothing any more: their pod is bound (wherever it went), gone or
// replaced, or they are older than cluster.HoldKeep.
func (r *Runner) forgetOverHolds(ctx context.Context, snap *cluster.Snapshot, dryRun bool) error {
	if r.cfg.History == nil || dryRun {
		return nil
	}
	over := func(h cluster.Hold) bool { return h.Over(snap) || !h.Live(snap.Now, cluster.HoldKeep) }
	if !slices.ContainsFunc(r.cfg.History.Holds(), over) {
		return nil
	}
	for _, h := range r.cfg.History.Holds() {
		if !over(h) {
			continue
		}
		where := "gone"
		if p := snap.Pod(h.Pod); p != nil && p.UID == h.UID && p.Spec.NodeName != "" {
			where = p.Spec.NodeName
		}
		klog.InfoS("A node held for a pending pod is held no more", "pod", h.Pod, "node", h.Node, "podNow", where)
	}
	return r.cfg.History.ForgetHolds(ctx, over)
}
