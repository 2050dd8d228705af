// Package scheduler is rebalancer's filter/score scheduling engine, with the
// semantics of kube-scheduler's default plugins. One engine serves three
// callers: the planner (where would this pod go if it were evicted?), the
// live scheduler (bind a pending pod where the plan said) and `rebalancer
// place` (explain a placement).
//
// The engine works on a cluster.Snapshot and never talks to the API server;
// the live scheduler loop, which does, lives in package schedulerd.
//
// An Engine runs one Profile, read from a KubeSchedulerConfiguration by
// LoadProfiles or taken from DefaultProfile. framework.go is the plugin
// framework (Plugin, FilterPlugin, ScorePlugin, StaticFilterPlugin, Cycle,
// State) that in-tree and out-of-tree plugins alike implement; registry.go
// and plugins.go hold the one table of plugins (Registry; NewEngine and
// LoadProfiles take out-of-tree ones). Each plugin lives in its own
// plugin_*.go file with its name, reasons, state and arguments; engine.go
// and cycle.go run one decision and tables.go holds what the engine derives
// once from a snapshot family. nominated.go holds pods nominated to a node
// against pods of lower priority; preemption*.go is Engine.Preempt,
// DefaultPreemption's decision for a pod that fits nowhere. docs/scheduler.md describes what is and is
// not simulated.
package scheduler
