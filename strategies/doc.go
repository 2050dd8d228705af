// Package strategies holds rebalancer's ten built-in strategies, one file
// each, and the table that registers them (registry.go) with their
// arguments' types, whose definitions, defaults and validation live in
// package policy (args_*.go). A strategy looks at the working snapshot of a
// cycle (Input) and proposes pods to move, each with a human reason; the
// planner decides whether and where each proposal becomes a move, and
// applies it to the snapshot before the strategy proposes the next one.
// Strategies make no API calls.
//
// Besides the strategies: guard.go and guardtargets.go are the Guard that
// keeps a move from undoing what another strategy fixed; tables.go holds
// what a cycle derives once from the parts of the snapshot moves do not
// change (labels, taints, affinity, images), shared by several strategies;
// targets.go, ranked.go and want.go are how strategies choose and order
// what they propose; usage.go and pools.go are what the node-utilization
// strategies share. Register adds a strategy from outside the repository,
// as examples/custom-strategy does; the optional interfaces the planner
// finds by type assertion (guard rules, idle and placement hints) are
// unexported, so such a strategy implements Strategy alone.
package strategies
