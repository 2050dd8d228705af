package cluster

// Index returns the node's position in Snapshot.Nodes(). It is the same in
// every fork of a snapshot, so that per-node tables built once (topology
// domains, taint groups, label matches) stay valid across what-if edits.
func (n *Node) Index() int { return n.index }

// Index returns the pod's position in Snapshot.Pods(), the same in every
// fork, so that what is derived from a pod once can be kept in a slice
// rather than a map keyed by the pod.
func (p *Pod) Index() int { return p.id }
