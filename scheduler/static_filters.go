package scheduler

// staticCheck is the part of filtering that depends only on the pod's spec
// and on what a node is (cordon, taints, labels, name), never on what runs
// there. Most rejected nodes fail here, so the engine checks these facts
// inline from precomputed tables before it calls the other filters; a node
// that fails is recorded as verdictStatic, and which filter rejected it is
// worked out again only for a message.
type staticCheck struct {
	unschedulable []bool
	taintOf       []int32
	untolerated   [][]string
	selection     []bool
	added         []bool
	nodeName      string
	names         []string
}

// staticFilters splits the active filters into the static check and the
// positions in active of the others, which still run in order.
func (c *cycle) staticFilters(active []filterPlugin) (staticCheck, []int) {
	var sc staticCheck
	var dynamic []int
	for k, f := range active {
		switch f.(type) {
		case nodeUnschedulable:
			sc.unschedulable = c.t.unschedulable
		case nodeNameFilter:
			sc.nodeName = c.nodeName
			sc.names = make([]string, len(c.nodes))
			for i, n := range c.nodes {
				sc.names[i] = n.Name
			}
		case taintFilter:
			untolerated, g := c.untoleratedReasons()
			sc.untolerated, sc.taintOf = untolerated, g.of
		case nodeAffinityFilter:
			sc.selection, sc.added = c.requiredAffinitySelection(), c.addedSelection()
		default:
			dynamic = append(dynamic, k)
		}
	}
	return sc, dynamic
}

// rejects reports whether a static filter turns node i down.
func (sc *staticCheck) rejects(i int) bool {
	return sc.unschedulable != nil && sc.unschedulable[i] ||
		sc.untolerated != nil && sc.untolerated[sc.taintOf[i]] != nil ||
		sc.selection != nil && !sc.selection[i] ||
		sc.added != nil && !sc.added[i] ||
		sc.names != nil && sc.names[i] != sc.nodeName
}
