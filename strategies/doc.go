// Package strategies holds rebalancer's strategies, one file each, and the
// table that registers them (registry.go) with their arguments' types. A
// strategy looks at the working snapshot of a cycle and proposes pods to
// move, each with a human reason; the planner decides whether and where each
// proposal becomes a move, and applies it to the snapshot before the
// strategy proposes the next one. Strategies make no API calls.
package strategies
