// Package strategies is the table of rebalancer's ten built-in strategies
// (registry.go): each strategy lives in a folder of its own,
// strategies/<name>, with its arguments, defaults and validation
// (args.go), the strategy, its guard rule and caches, its registration and
// the descheduler plugin it stands for (register.go), and its tests. The
// table lists their registrations in the order they run and registers
// them when the package is linked in; the planner imports it, so every
// program that plans, and every test that loads a policy through it, sees
// the built-in strategies.
//
// A strategy looks at the working snapshot of a cycle (framework.Cycle)
// and proposes pods to move, each with a human reason; the planner decides
// whether and where each proposal becomes a move, and applies it to the
// snapshot before the strategy proposes the next one. Strategies make no
// API calls. Package framework is what every strategy is written against,
// built-in or not (examples/custom-strategy); package nodeutilization is
// what the two utilization strategies share.
//
// The tests of this package plan with several strategies together: their
// interplay, overrides, skipped pods, resizes and scale.
package strategies
