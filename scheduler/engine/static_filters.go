package engine

import "github.com/kube-rebalancer/rebalancer/scheduler/framework"

// staticFilters splits the active filters into static checks, the tables
// of the StaticFilterPlugins, and the positions in active of the others,
// which still run in order. A static filter depends only on the pod's spec
// and on what a node is (cordon, taints, labels, name), never on what runs
// there. Most rejected nodes fail one, so the engine checks these tables
// inline before it calls the other filters; a node that fails is recorded as
// verdictStatic, and which filter rejected it is worked out again only for a
// message.
//
// It also readies the per-node records of why a node was turned down: the
// filter loop records, for a node a static check rejects, which check it
// was, and, for a node another filter rejects, that filter's reasons, so
// that a message does not run the filters again.
func (c *cycle) staticFilters(active []framework.FilterPlugin) ([]framework.NodeCheck, []int) {
	static, dynamic := c.static[:0], c.dynamic[:0]
	c.staticPlugin = c.staticPlugin[:0]
	c.firstDynamic = len(active)
	for k, f := range active {
		if sf, ok := f.(framework.StaticFilterPlugin); ok {
			static = sf.AppendStaticChecks(&c.Cycle, static)
			for len(c.staticPlugin) < len(static) {
				c.staticPlugin = append(c.staticPlugin, uint8(k))
			}
			continue
		}
		c.firstDynamic = min(c.firstDynamic, k)
		dynamic = append(dynamic, k)
	}
	c.static, c.dynamic = static, dynamic
	if len(c.staticBy) < len(c.Nodes()) {
		c.staticBy = make([]uint8, len(c.Nodes()))
		c.filterReasons = make([][]string, len(c.Nodes()))
	}
	return static, dynamic
}
