package planner

import (
	"fmt"
	"maps"
	"strings"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// budgets tracks what each PodDisruptionBudget still allows in the current
// step: its status.disruptionsAllowed, less one for each planned eviction it
// covers. A later step starts afresh, since the run waits between steps
// until the budgets are back. Counting them is what keeps a plan from
// knowingly running into the API server's 429.
type budgets struct {
	left map[*cluster.PDB]int32
}

func newBudgets() *budgets { return &budgets{left: make(map[*cluster.PDB]int32)} }

func (b *budgets) remaining(pdb *cluster.PDB) int32 {
	if v, ok := b.left[pdb]; ok {
		return v
	}
	return pdb.DisruptionsAllowed()
}

// blocked returns why the budgets forbid evicting the pod, or "".
func (b *budgets) blocked(snap *cluster.Snapshot, p *cluster.Pod) string {
	pdbs := snap.PDBsFor(p)
	if len(pdbs) > 1 {
		names := make([]string, len(pdbs))
		for i, pdb := range pdbs {
			names[i] = pdb.Name
		}
		return fmt.Sprintf("covered by %d PodDisruptionBudgets (%s); the Eviction API refuses pods with more than one", len(pdbs), strings.Join(names, ", "))
	}
	for _, pdb := range pdbs {
		if !pdb.CountsAgainst(p.Pod) {
			continue
		}
		if b.remaining(pdb) <= 0 {
			if pdb.Status.ObservedGeneration < pdb.Generation {
				return fmt.Sprintf("PodDisruptionBudget %s: its status is not up to date (observedGeneration %d < generation %d), so it allows no disruption",
					pdb.Key, pdb.Status.ObservedGeneration, pdb.Generation)
			}
			if pdb.DisruptionsAllowed() <= 0 {
				return fmt.Sprintf("PodDisruptionBudget %s allows no disruption now (status.disruptionsAllowed 0)", pdb.Key)
			}
			return fmt.Sprintf("PodDisruptionBudget %s allows no more disruptions in this step (%d allowed, all used)", pdb.Key, pdb.DisruptionsAllowed())
		}
	}
	return ""
}

func (b *budgets) clone() *budgets { return &budgets{left: maps.Clone(b.left)} }

// spend takes one disruption from each budget the eviction counts against.
func (b *budgets) spend(snap *cluster.Snapshot, p *cluster.Pod) {
	for _, pdb := range snap.PDBsFor(p) {
		if pdb.CountsAgainst(p.Pod) {
			b.left[pdb] = b.remaining(pdb) - 1
		}
	}
}
