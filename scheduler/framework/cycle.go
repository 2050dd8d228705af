package framework

import (
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// Cycle is one scheduling decision as a plugin sees it: the pod, the
// snapshot and its nodes, the plugins' state (State, FamilyState) and the
// facts several plugins share, computed once per decision on first use
// (NodeAffinitySelection, UntoleratedTaints, NamespaceLabels, …), as
// kube-scheduler's CycleState, PodInfo and NodeInfo. The engine pools
// cycles, so that their buffers and the plugins' states are reused from
// call to call.
type Cycle struct {
	snap  *cluster.Snapshot
	nodes []*cluster.Node
	pod   *cluster.Pod
	fam   *Family

	// states and famStates hold each plugin's state by StateKey (see
	// State), and the family states it asked for in this decision.
	states    []stateSlot
	famStates []any

	rejections Rejections

	// Facts several plugins share, computed on first use.
	affinitySelection     []bool // nil when the pod's node selector and affinity select every node
	affinitySelectionKey  string
	affinitySelectionDone bool
	untolerated           Untolerated
	nsLabels              labels.Set

	// int32s are count buffers handed out by Int32Buffer; used counts
	// those handed out in this cycle.
	int32s [][]int32
	used   int
}

// Rejections is the engine's record of why it turned each node down.
type Rejections interface {
	Rejection(i int) (by string, reasons []string)
}

// Init is the engine's: it readies a new pooled cycle for an engine of
// plugins plugins, whose rejections r records.
func (c *Cycle) Init(plugins int, r Rejections) {
	c.states = make([]stateSlot, plugins)
	c.famStates = make([]any, plugins)
	c.rejections = r
}

// Begin is the engine's: it starts the decision of pod on snap, whose
// family is fam.
func (c *Cycle) Begin(snap *cluster.Snapshot, pod *cluster.Pod, fam *Family) {
	*c = Cycle{
		snap:       snap,
		nodes:      snap.Nodes(),
		pod:        pod,
		fam:        fam,
		states:     c.states,
		famStates:  c.famStates,
		rejections: c.rejections,
		int32s:     c.int32s,
	}
}

// End is the engine's: it ends the decision, dropping what points into
// the snapshot, so that a pooled cycle does not keep a snapshot alive, and
// keeping the buffers.
func (c *Cycle) End() {
	for _, s := range c.states {
		if s.reset != nil {
			s.reset()
		}
	}
	clear(c.famStates)
	*c = Cycle{states: c.states, famStates: c.famStates, rejections: c.rejections, int32s: c.int32s}
}

// Pod returns the pod being scheduled.
func (c *Cycle) Pod() *cluster.Pod { return c.pod }

// Snapshot returns the snapshot the pod is scheduled on.
func (c *Cycle) Snapshot() *cluster.Snapshot { return c.snap }

// Nodes returns the snapshot's nodes, in name order: the i of Filter and
// the entries of Score's feasible index into it.
func (c *Cycle) Nodes() []*cluster.Node { return c.nodes }

// Rejection returns what turned node i down in this decision (a plugin's
// name, Exclude, Accept or an extender) and its reasons; "" and nil for a
// node that passed.
func (c *Cycle) Rejection(i int) (by string, reasons []string) { return c.rejections.Rejection(i) }

// Int32Buffer returns a zeroed []int32 of length n that lives until the
// cycle ends: counts per topology domain are as long as the number of
// nodes for the hostname key, and reusing them spares the allocator.
func (c *Cycle) Int32Buffer(n int) []int32 {
	if c.used == len(c.int32s) {
		c.int32s = append(c.int32s, nil)
	}
	buf := Zeroed(&c.int32s[c.used], n)
	c.used++
	return buf
}
