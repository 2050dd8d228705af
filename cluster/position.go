package cluster

// Index returns the node's position in Snapshot.Nodes(). It is the same in
// every fork of a snapshot, so that per-node tables built once (topology
// domains, taint groups, label matches) stay valid across what-if edits.
func (n *Node) Index() int { return n.index }
