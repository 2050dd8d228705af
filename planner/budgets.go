package planner

import (
	"fmt"
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// budgets tracks what each PodDisruptionBudget still allows in the current
// step: its status.disruptionsAllowed, less one for each planned eviction it
// covers. A later step starts afresh, since the run waits between steps
// until the budgets are back. Counting them is what keeps a plan from
// knowingly running into the API server's 429.
//
// A pod that no PodDisruptionBudget covers counts against its workload's
// implicit budget instead, when the policy keeps them: the workload's own
// maxUnavailable (cluster.Tolerance), less its pods not Ready now. The
// run's wait between steps for the replacements to be Ready gives it back
// as it gives a PodDisruptionBudget back.
type budgets struct {
	left map[*cluster.PDB]int32
	// workloads holds what each implicit budget still allows in the step.
	workloads map[cluster.Workload]int32
	// implicit resolves the implicit budgets; nil when the policy turns
	// them off.
	implicit *implicitBudgets
}

func newBudgets(implicit *implicitBudgets) *budgets {
	return &budgets{left: make(map[*cluster.PDB]int32), workloads: make(map[cluster.Workload]int32), implicit: implicit}
}

// next returns the budgets of a new step: all of them back.
func (b *budgets) next() *budgets { return newBudgets(b.implicit) }

func (b *budgets) remaining(pdb *cluster.PDB) int32 {
	if v, ok := b.left[pdb]; ok {
		return v
	}
	return pdb.DisruptionsAllowed()
}

// makeBeforeBreakHint ends the skip of a Deployment's pod that a budget
// keeps for ever, for a policy that does not move it by surge.
const makeBeforeBreakHint = "; evictable.makeBeforeBreak moves a Deployment's pod by surge instead"

// blocked returns why the budgets forbid evicting the pod, or "".
func (b *budgets) blocked(snap *cluster.Snapshot, p *cluster.Pod) string {
	why, _ := b.blockedBy(snap, p)
	return why
}

// blockedBy is blocked, and whether what forbids the eviction is a count of
// disruptions, which a surge leaves as it is: not more than one budget, nor
// a budget whose status is behind.
func (b *budgets) blockedBy(snap *cluster.Snapshot, p *cluster.Pod) (why string, count bool) {
	pdbs := snap.PDBsFor(p)
	if len(pdbs) > 1 {
		names := make([]string, len(pdbs))
		for i, pdb := range pdbs {
			names[i] = pdb.Name
		}
		return fmt.Sprintf("covered by %d PodDisruptionBudgets (%s); the Eviction API refuses pods with more than one", len(pdbs), strings.Join(names, ", ")), false
	}
	for _, pdb := range pdbs {
		if !pdb.CountsAgainst(p.Pod) {
			continue
		}
		if b.remaining(pdb) <= 0 {
			if pdb.Status.ObservedGeneration < pdb.Generation {
				return fmt.Sprintf("PodDisruptionBudget %s: its status is not up to date (observedGeneration %d < generation %d), so it allows no disruption",
					pdb.Key, pdb.Status.ObservedGeneration, pdb.Generation), false
			}
			if pdb.DisruptionsAllowed() <= 0 {
				if why := pdb.NeverAllows(); why != "" {
					never := fmt.Sprintf("PodDisruptionBudget %s can never allow a disruption (%s): no eviction moves this pod while the budget stands", pdb.Key, why)
					if p.Workload.Kind == "Deployment" {
						never += makeBeforeBreakHint
					}
					return never, true
				}
				return fmt.Sprintf("PodDisruptionBudget %s allows no disruption now (status.disruptionsAllowed 0)", pdb.Key), true
			}
			return fmt.Sprintf("PodDisruptionBudget %s allows no more disruptions in this step (%d allowed, all used)", pdb.Key, pdb.DisruptionsAllowed()), true
		}
	}
	if len(pdbs) > 0 {
		return "", false
	}
	ib, ok := b.implicit.of(snap, p)
	if !ok || !countsAgainstImplicit(p.Pod) || b.remainingOf(ib) > 0 {
		return "", false
	}
	if ib.allowed <= 0 {
		notReady := fmt.Sprintf("%d of its pods are not Ready now, so it allows no disruption until they are", ib.unavailable)
		if ib.unavailable == 1 {
			notReady = "1 of its pods is not Ready now, so it allows no disruption until it is"
		}
		return fmt.Sprintf("no PodDisruptionBudget covers it; implicit budget: %s, and %s", ib.tolerance, notReady), true
	}
	return fmt.Sprintf("no PodDisruptionBudget covers it; implicit budget: %s, all used in this step", ib.tolerance), true
}

func (b *budgets) remainingOf(ib implicitBudget) int32 {
	if v, ok := b.workloads[ib.tolerance.Workload]; ok {
		return v
	}
	return ib.allowed
}

func (b *budgets) clone() *budgets {
	return &budgets{left: maps.Clone(b.left), workloads: maps.Clone(b.workloads), implicit: b.implicit}
}

// spend takes one disruption from each budget the eviction counts against.
func (b *budgets) spend(snap *cluster.Snapshot, p *cluster.Pod) {
	pdbs := snap.PDBsFor(p)
	for _, pdb := range pdbs {
		if pdb.CountsAgainst(p.Pod) {
			b.left[pdb] = b.remaining(pdb) - 1
		}
	}
	if len(pdbs) > 0 {
		return
	}
	if ib, ok := b.implicit.of(snap, p); ok && countsAgainstImplicit(p.Pod) {
		b.workloads[ib.tolerance.Workload] = b.remainingOf(ib) - 1
	}
}

// applied names the implicit budget the pod's eviction counts under, "" when
// a PodDisruptionBudget covers the pod or none applies.
func (b *budgets) applied(snap *cluster.Snapshot, p *cluster.Pod) string {
	if len(snap.PDBsFor(p)) > 0 {
		return ""
	}
	if ib, ok := b.implicit.of(snap, p); ok {
		return ib.applied
	}
	return ""
}

// countsAgainstImplicit reports whether evicting the pod makes its workload
// less available: a pod that is pending, finished, terminating or not Ready
// already serves nothing, as the API server judges it for a budget that
// allows unhealthy evictions.
func countsAgainstImplicit(p *corev1.Pod) bool {
	switch {
	case p.Status.Phase == corev1.PodPending || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed:
		return false
	case p.DeletionTimestamp != nil:
		return false
	}
	return cluster.IsReady(p)
}

// implicitBudgets resolves, once a workload, what its own spec lets a step
// take of it.
type implicitBudgets struct {
	known map[cluster.Workload]implicitBudget
}

func newImplicitBudgets() *implicitBudgets {
	return &implicitBudgets{known: make(map[cluster.Workload]implicitBudget)}
}

// implicitBudget is a workload's implicit budget: its tolerance less its
// pods that are not Ready now.
type implicitBudget struct {
	tolerance   cluster.Tolerance
	unavailable int32
	allowed     int32
	ok          bool
	// applied is what each move under it says: written once a workload.
	applied string
}

// of returns the implicit budget of the pod's workload; false when the
// policy keeps none or the workload states no tolerance.
func (ib *implicitBudgets) of(snap *cluster.Snapshot, p *cluster.Pod) (implicitBudget, bool) {
	if ib == nil || p.Workload.IsZero() {
		return implicitBudget{}, false
	}
	if b, ok := ib.known[p.Workload]; ok {
		return b, b.ok
	}
	var b implicitBudget
	b.tolerance, b.ok = snap.ToleranceOf(p.Workload)
	if b.ok {
		// Counted from the pods, not from the replica count: a snapshot
		// of part of a cluster lacks pods that may well be running. A
		// terminating pod's replacement is already counted.
		for _, q := range snap.PodsOf(p.Workload) {
			if !q.IsTerminal() && q.DeletionTimestamp == nil && !cluster.IsReady(q.Pod) {
				b.unavailable++
			}
		}
		b.allowed = b.tolerance.MaxUnavailable - b.unavailable
		b.applied = "implicit budget: " + b.tolerance.String()
	}
	ib.known[p.Workload] = b
	return b, b.ok
}
