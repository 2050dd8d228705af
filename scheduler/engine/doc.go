// Package engine is rebalancer's filter/score scheduling engine, with the
// semantics of kube-scheduler's default plugins. One Engine serves three
// callers: the planner (where would this pod go if it were evicted?), the
// live scheduler (bind a pending pod where the plan said) and `rebalancer
// place` (explain a placement).
//
// The engine works on a cluster.Snapshot and never talks to the API server;
// the live scheduler loop, which does, lives in package schedulerd, and the
// HTTP extenders it calls through the Extender interface, in package
// extenderclient.
//
// New builds the Engine of one profile.Profile (package scheduler/profile),
// with out-of-tree plugin registries besides the in-tree table of
// scheduler/plugins. The plugins see the engine only through package
// scheduler/framework.
//
// engine.go and cycle.go run one decision (Schedule, Fits); tables.go and
// static_index.go hold what the engine derives once from a snapshot
// family; nominated.go holds pods nominated to a node against pods of
// lower priority; extender.go calls the profile's extenders;
// postfilter_permit.go and volume_prebind.go are what the live scheduler
// runs after a decision (Permit, WaitingPods, PodVolumes).
//
// resolvable.go and nominated.go export what package scheduler/preemption
// (DefaultPreemption's decision for a pod that fits nowhere) asks of the
// engine, as kube-scheduler's preemption asks its framework.Handle:
// Engine.Resolvable (the nodes a failed decision could make room on),
// Engine.FilterWithNominated (the filters on one node of a scratch
// snapshot, with the pods nominated there), NominatedAgainst, SamePod and
// SearchStart. None of them runs in Schedule's loop over the nodes.
// docs/scheduler.md describes what is and is not simulated.
package engine
