// Package rebalance runs rebalancing cycles against a live cluster: read
// the cluster through the API server, plan with the policy, record the
// planned evictions in the state ConfigMap (the cooldown of later cycles and
// the live scheduler's hand-off read them), evict, forget the evictions that
// did not happen, and report.
//
// The planning itself is package planner's and is pure; Planning is the
// one snapshot-to-plan pipeline that `rebalancer plan` and every cycle of
// `rebalancer run` share, so that their plans are equal. The rest of this
// package is the sequence around it and the order that matters: the record
// is written before the first eviction, since the ReplicaSet controller
// recreates an evicted pod within milliseconds. Package cmd/rebalancer/app
// keeps the flags and the exit codes.
package rebalance
