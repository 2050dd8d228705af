// Package scheduler is rebalancer's filter/score scheduling engine, with the
// semantics of kube-scheduler's default plugins. One engine serves three
// callers: the planner (where would this pod go if it were evicted?), the
// live scheduler (bind a pending pod where the plan said) and `rebalancer
// place` (explain a placement).
//
// The engine works on a cluster.Snapshot and never talks to the API server;
// the live scheduler loop, which does, lives in package schedulerd, and the
// HTTP extenders it calls through the Extender interface, in package
// extenderclient.
//
// An Engine runs one Profile, read from a KubeSchedulerConfiguration by
// LoadProfiles or taken from DefaultProfile. framework.go is the plugin
// framework (Plugin, FilterPlugin, ScorePlugin, StaticFilterPlugin,
// PostFilterPlugin, PermitPlugin, Handle and its state keys); registry.go
// and plugins.go hold the one table of plugins (Registry; NewEngine and
// LoadProfiles take out-of-tree ones). Each in-tree plugin lives in its own
// plugin_*.go file with its name, reasons and arguments, but several also
// read the engine's internals (Cycle methods, facts cycle.go precomputes and
// caches in tables.go), which an out-of-tree plugin cannot: it sees only the
// exported framework.
//
// engine.go and cycle.go run one decision (Schedule, Fits); tables.go,
// node_tables.go and static_index.go hold what the engine derives once from
// a snapshot family; nominated.go holds pods nominated to a node against
// pods of lower priority; preemption*.go is Engine.Preempt, DefaultPreemption's
// decision for a pod that fits nowhere; postfilter_permit.go and
// plugin_volume_binding_prebind.go are what the live scheduler runs after a
// decision (Permit, PodVolumes). docs/scheduler.md describes what is and is
// not simulated.
package scheduler
