// Package cluster is rebalancer's in-memory view of a Kubernetes cluster.
//
// A Snapshot holds the nodes, pods (all phases), PodDisruptionBudgets,
// namespaces, priority classes and ReplicaSets that a rebalancing cycle plans
// against, with the indexes the strategies, the planner and the scheduler
// engine need: pods by node, pods by workload, PDBs by pod and the resources
// requested on each node under the Kubernetes effective-request rule.
//
// A Snapshot is loaded once per cycle, from the API server (by package
// cluster/kube: this package never imports client-go) or from a file, and is
// then pure data. What-if edits (a pod taken off one node and put on another)
// are made on a Fork, which shares everything with its parent and copies a
// node only when an edit touches it, so that a planner can apply hundreds of
// moves to a 5,000-node cluster without copying it.
//
// The package also states, once, the Kubernetes rules that the scheduler
// engine and the strategies both apply to a snapshot: how a topology spread
// constraint is compiled (SpreadConstraint) and which taints and cordons
// keep a pod off a node (HardTaint, ToleratesHardTaints,
// ToleratesUnschedulable).
package cluster
