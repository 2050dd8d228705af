// Package cluster is rebalancer's in-memory view of a Kubernetes cluster.
//
// A Snapshot holds what a rebalancing cycle plans against: nodes, pods (all
// phases), PodDisruptionBudgets, namespaces, priority classes, the
// workloads' ReplicaSets, Deployments, StatefulSets and Jobs, RuntimeClasses,
// the volume kinds scheduling reads (PersistentVolumes, claims,
// StorageClasses, CSINodes) and, when a policy balances on usage,
// metrics.k8s.io samples or Prometheus node scores. It keeps the indexes the strategies, the planner
// and the scheduler engine need: pods by node, by workload and by label set,
// PDBs by pod, and the resources requested on each node under the
// Kubernetes effective-request rule.
//
// A Snapshot is built once per cycle, from the API server (by package
// cluster/kube: this package never imports client-go) or from a dump, which
// is decoded object by object and trimmed to what planning reads; Gaps says
// which kinds a dump lacks that the plan depends on. What-if edits (a pod
// taken off one node and put on another) are made on a Fork, which shares
// everything with its parent and copies a node only when an edit touches
// it. The live scheduler keeps one long-lived Snapshot up to date with
// SetPod, DeletePod and their kin.
//
// The package also states, once, the Kubernetes rules that the scheduler
// engine and the strategies both apply to a snapshot: how a topology spread
// constraint is compiled (CompileSpreadConstraint) and which taints and cordons
// keep a pod off a node (HardTaint, ToleratesHardTaints,
// ToleratesUnschedulable). It also writes and reads the eviction history
// kept in rebalancer's state ConfigMap (Eviction, DecodeEvictions).
package cluster
