package scheduler

// staticFilters splits the active filters into static checks, the tables
// of the StaticFilterPlugins, and the positions in active of the others,
// which still run in order. A static filter depends only on the pod's spec
// and on what a node is (cordon, taints, labels, name), never on what runs
// there. Most rejected nodes fail one, so the engine checks these tables
// inline before it calls the other filters; a node that fails is recorded as
// verdictStatic, and which filter rejected it is worked out again only for a
// message.
func (c *Cycle) staticFilters(active []FilterPlugin) ([]NodeCheck, []int) {
	static, dynamic := c.static[:0], c.dynamic[:0]
	for k, f := range active {
		if sf, ok := f.(StaticFilterPlugin); ok {
			static = sf.AppendStaticChecks(c, static)
			continue
		}
		dynamic = append(dynamic, k)
	}
	c.static, c.dynamic = static, dynamic
	return static, dynamic
}
