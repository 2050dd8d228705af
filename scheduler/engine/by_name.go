package engine

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
)

// ByName is a Placer that simulates, for each pod, the profile of the
// scheduler that will place it: the engine named by the pod's
// spec.schedulerName, or Default for a name it does not know
// (default-scheduler included, when no profile of that name was given).
type ByName struct {
	Engines map[string]*Engine
	Default *Engine
}

func (b *ByName) engine(p *cluster.Pod) *Engine {
	if e, ok := b.Engines[p.Spec.SchedulerName]; ok {
		return e
	}
	return b.Default
}

// Schedule implements Placer.
func (b *ByName) Schedule(snap *cluster.Snapshot, pod *cluster.Pod, opts Options) Result {
	return b.engine(pod).Schedule(snap, pod, opts)
}

// Fits implements Placer.
func (b *ByName) Fits(snap *cluster.Snapshot, pod *cluster.Pod, node *cluster.Node) (bool, string) {
	return b.engine(pod).Fits(snap, pod, node)
}
