package cluster

// matchPDBs finds, for each pod (by id), the budgets that cover it. Checking
// every budget of a namespace against every pod of it is quadratic in a
// namespace with one budget per workload; instead each budget looks only at
// the pods that carry the rarest of its matchLabels pairs, and the selector
// decides among those. Budgets selecting by expressions alone look at their
// whole namespace.
func matchPDBs(pods []*Pod, pdbs []*PDB) [][]*PDB {
	byPod := make([][]*PDB, len(pods))
	if len(pdbs) == 0 {
		return byPod
	}
	inNamespace := make(map[string][]*Pod)
	for _, p := range pods {
		inNamespace[p.Namespace] = append(inNamespace[p.Namespace], p)
	}
	// withLabel[namespace][key=value] is built only for namespaces that have
	// a budget.
	withLabel := make(map[string]map[string][]*Pod)
	for _, pdb := range pdbs {
		index, ok := withLabel[pdb.Namespace]
		if !ok {
			index = make(map[string][]*Pod)
			for _, p := range inNamespace[pdb.Namespace] {
				for k, v := range p.Labels {
					index[k+"="+v] = append(index[k+"="+v], p)
				}
			}
			withLabel[pdb.Namespace] = index
		}
		candidates := inNamespace[pdb.Namespace]
		if sel := pdb.Spec.Selector; sel != nil {
			for k, v := range sel.MatchLabels {
				if c := index[k+"="+v]; len(c) < len(candidates) {
					candidates = c
				}
			}
		}
		for _, p := range candidates {
			if pdb.Matches(p.Pod) {
				byPod[p.id] = append(byPod[p.id], pdb)
			}
		}
	}
	return byPod
}
