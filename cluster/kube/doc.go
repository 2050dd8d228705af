// Package kube is where a cluster meets the API server: reading the objects
// a cluster.Snapshot is built from, and keeping rebalancer's state
// ConfigMap, the record of recent evictions that the planner's cooldown and
// the live scheduler's hand-off read.
//
// Package cluster itself never imports client-go, so that the planning core
// builds and tests without it; everything here is the edge around it.
package kube
