// Package scheduler holds no code: it is where rebalancer's scheduling
// parts live, each in a package of its own.
//
//   - scheduler/engine: the filter/score engine (engine.New, Engine,
//     Options, Result): filter and score loops, static index, nominated
//     pods, extenders, Permit and pod volumes.
//   - scheduler/preemption: DefaultPreemption's decision for a pod that
//     fits nowhere (preemption.Decide), over what the engine exports.
//   - scheduler/profile: profiles read from a KubeSchedulerConfiguration,
//     and the plugins each runs at each extension point.
//   - scheduler/framework: what a plugin sees of the engine, in-tree and
//     out-of-tree alike.
//   - scheduler/plugins: the in-tree table, and one package a plugin.
//   - scheduler/schedulertest: what the plugins' tests share.
//
// The live scheduler loop is package schedulerd, the HTTP extenders
// package extenderclient. docs/design.md says which may import which.
package scheduler
