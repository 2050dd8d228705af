package cluster

// TopologyDomains numbers the values of one topology key (a zone, a
// hostname) over a list of nodes, so that counting pods per domain is
// indexing a slice: Of[i] is the domain of node i, or -1 when the node lacks
// the label; Values[d] is the label value of domain d.
type TopologyDomains struct {
	Of     []int32
	Values []string
}

// NewTopologyDomains numbers the domains of key over nodes (API nodes or
// snapshot nodes), in the order the nodes first show each value.
func NewTopologyDomains[N interface{ GetLabels() map[string]string }](nodes []N, key string) *TopologyDomains {
	d := &TopologyDomains{Of: make([]int32, len(nodes))}
	ids := make(map[string]int32)
	for i, n := range nodes {
		v, ok := n.GetLabels()[key]
		if !ok {
			d.Of[i] = -1
			continue
		}
		id, seen := ids[v]
		if !seen {
			id = int32(len(d.Values))
			ids[v] = id
			d.Values = append(d.Values, v)
		}
		d.Of[i] = id
	}
	return d
}
