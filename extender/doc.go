// Package extender is `rebalancer extender`: an HTTP kube-scheduler
// extender that steers the replacement of each pod a run evicted to the
// node the plan chose for it, so that the plan comes true for workloads of
// the default scheduler too, and leaves the scheduling of every other pod
// exactly as kube-scheduler decides it.
//
// kube-scheduler calls it with its own extender types
// (k8s.io/kube-scheduler/extender/v1) after its filters and scores:
// filter keeps only the planned node when that node is among the feasible
// ones, prioritize gives it the highest score. The intents come from the
// state ConfigMap that `rebalancer run` writes before its first eviction,
// held in memory from a watch, so that no request waits for the API server.
package extender
