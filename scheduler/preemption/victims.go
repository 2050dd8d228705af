package preemption

import (
	"slices"
	"time"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
)

// candidate is a node where the pod fits once victims are deleted.
type candidate struct {
	node          int
	victims       []*cluster.Pod
	pdbViolations int
}

// selectVictims is DefaultPreemption's SelectVictimsOnNode on node i of
// scratch: remove every pod of lower priority, check that pod fits, then
// put back as many as still let it fit, those a PodDisruptionBudget
// protects first, the most important first in each group. It returns the
// candidate, or why the node cannot be one. scratch is as it was
// afterwards.
func selectVictims(e *engine.Engine, scratch *cluster.Snapshot, pod *cluster.Pod, i int, b *budgets, nominated []*cluster.Pod) (candidate, *engine.Rejection) {
	node := scratch.Nodes()[i]
	var potential []*cluster.Pod
	for _, p := range node.Pods() {
		if p.Priority < pod.Priority {
			potential = append(potential, p)
		}
	}
	if len(potential) == 0 {
		return candidate{}, &engine.Rejection{Reasons: []string{reasonNoVictims}, Unresolvable: true}
	}
	name := node.Name
	for _, p := range potential {
		scratch.Remove(p)
	}
	defer func() {
		for _, p := range potential {
			_ = scratch.Place(p, name)
		}
	}()
	if st := e.FilterWithNominated(scratch, pod, i, nominated); st != nil {
		return candidate{}, st
	}
	slices.SortStableFunc(potential, func(a, b *cluster.Pod) int {
		return moreImportantOrder(a, b, scratch.Now)
	})
	violating, clean := b.split(potential)
	cand := candidate{node: i}
	reprieve := func(p *cluster.Pod) bool {
		_ = scratch.Place(p, name)
		if e.FilterWithNominated(scratch, pod, i, nominated) == nil {
			return true
		}
		scratch.Remove(p)
		cand.victims = append(cand.victims, p)
		return false
	}
	for _, p := range violating {
		if !reprieve(p) {
			cand.pdbViolations++
		}
	}
	for _, p := range clean {
		reprieve(p)
	}
	if len(cand.victims) == 0 {
		return candidate{}, &engine.Rejection{Reasons: []string{reasonNoVictimNeeded + ` "` + name + `"`}}
	}
	if len(violating) > 0 && len(clean) > 0 {
		slices.SortStableFunc(cand.victims, func(a, b *cluster.Pod) int {
			return moreImportantOrder(a, b, scratch.Now)
		})
	}
	return cand, nil
}

// moreImportantOrder orders pods as kube-scheduler's MoreImportantPod:
// higher priority first, then the one that started earlier.
func moreImportantOrder(a, b *cluster.Pod, now time.Time) int {
	switch {
	case a.Priority != b.Priority:
		if a.Priority > b.Priority {
			return -1
		}
		return 1
	}
	return startTime(a, now).Compare(startTime(b, now))
}

// startTime is when the kubelet started the pod; a pod without a start
// time counts as starting now, as kube-scheduler counts it.
func startTime(p *cluster.Pod, now time.Time) time.Time {
	if p.Status.StartTime != nil {
		return p.Status.StartTime.Time
	}
	return now
}

// budgets are the snapshot's PodDisruptionBudgets as DefaultPreemption
// reads them: status.disruptionsAllowed as written, and a budget with an
// empty selector covers no pod.
type budgets struct {
	pdbs []*cluster.PDB
}

func newBudgets(snap *cluster.Snapshot) *budgets {
	b := &budgets{}
	for _, pdb := range snap.PDBs() {
		sel := pdb.Spec.Selector
		if sel == nil || len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
			continue
		}
		b.pdbs = append(b.pdbs, pdb)
	}
	return b
}

// split divides pods, in order, into those whose deletion would exceed a
// budget and the others, spending each budget's allowed disruptions in
// that order; a pod the budget already lists in disruptedPods has been
// counted by the API server and spends nothing.
func (b *budgets) split(pods []*cluster.Pod) (violating, clean []*cluster.Pod) {
	allowed := make([]int32, len(b.pdbs))
	for k, pdb := range b.pdbs {
		allowed[k] = pdb.Status.DisruptionsAllowed
	}
	for _, p := range pods {
		violates := false
		if len(p.Labels) > 0 {
			for k, pdb := range b.pdbs {
				if !pdb.Matches(p.Pod) {
					continue
				}
				if _, ok := pdb.Status.DisruptedPods[p.Name]; ok {
					continue
				}
				allowed[k]--
				if allowed[k] < 0 {
					violates = true
				}
			}
		}
		if violates {
			violating = append(violating, p)
		} else {
			clean = append(clean, p)
		}
	}
	return violating, clean
}
