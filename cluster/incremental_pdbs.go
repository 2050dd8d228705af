package cluster

import (
	"slices"
	"strings"

	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// The methods of this file keep a long-lived snapshot's
// PodDisruptionBudgets up to date with a watch, sorted and matched to their
// pods as New does. They leave the generation alone: the engine's tables
// derive nothing from budgets, and preemption reads them on every call.

// SetPDB adds the PodDisruptionBudget, or replaces the one of the same
// namespace and name. A budget whose selector cannot be parsed covers no
// pod, as kube-scheduler reads it: it is taken out, and the error says why.
// The object is kept, not copied.
func (s *Snapshot) SetPDB(obj *policyv1.PodDisruptionBudget) error {
	pdb, err := newPDB(obj)
	if err != nil {
		s.DeletePDB(obj.Namespace, obj.Name)
		return err
	}
	i, found := slices.BinarySearchFunc(s.pdbs, pdb.Key, func(p *PDB, key string) int { return strings.Compare(p.Key, key) })
	if found {
		old := s.pdbs[i]
		if equality.Semantic.DeepEqual(old.Spec.Selector, obj.Spec.Selector) {
			// The status changes with every pod of the budget: the pods it
			// covers stay the same, and see the new object through old.
			*old = *pdb
			return nil
		}
		pdbs := slices.Clone(s.pdbs)
		pdbs[i] = pdb
		s.pdbs = pdbs
	} else {
		// A new slice, not a shifted one: a fork shares the old one.
		s.pdbs = slices.Insert(slices.Clip(s.pdbs), i, pdb)
	}
	s.pdbsByPod = matchPDBs(s.pods, s.pdbs)
	return nil
}

// DeletePDB forgets the PodDisruptionBudget namespace/name.
func (s *Snapshot) DeletePDB(namespace, name string) {
	i, found := slices.BinarySearchFunc(s.pdbs, namespace+"/"+name, func(p *PDB, key string) int { return strings.Compare(p.Key, key) })
	if !found {
		return
	}
	s.pdbs = slices.Delete(slices.Clone(s.pdbs), i, i+1)
	s.pdbsByPod = matchPDBs(s.pods, s.pdbs)
}

// pdbsCovering returns the budgets that cover the pod, in the snapshot's
// order.
func (s *Snapshot) pdbsCovering(p *Pod) []*PDB {
	var out []*PDB
	for _, pdb := range s.pdbs {
		if pdb.Matches(p.Pod) {
			out = append(out, pdb)
		}
	}
	return out
}
