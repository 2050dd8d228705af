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
// An Engine runs one profile.Profile, read from a KubeSchedulerConfiguration
// by profile.LoadProfiles or taken from profile.DefaultProfile (package
// scheduler/profile). The plugins see the engine
// only through package framework (Plugin, FilterPlugin, ScorePlugin,
// StaticFilterPlugin, PostFilterPlugin, PermitPlugin, Handle, Cycle, State
// and FamilyState); each in-tree plugin is a package under
// scheduler/plugins, written against the framework alone as an
// out-of-tree plugin is, and scheduler/plugins/registry.go is the one
// table of them (NewEngine and LoadProfiles take out-of-tree registries).
//
// engine.go and cycle.go run one decision (Schedule, Fits); tables.go and
// static_index.go hold what the engine derives once from a snapshot
// family; nominated.go holds pods nominated to a node against
// pods of lower priority; preemption*.go is Engine.Preempt, DefaultPreemption's
// decision for a pod that fits nowhere; postfilter_permit.go and
// volume_prebind.go are what the live scheduler runs after a
// decision (Permit, PodVolumes). docs/scheduler.md describes what is and is
// not simulated.
package scheduler
