// Package planner turns the candidates of the strategies into a Plan: the
// ordered moves of one cycle (pod, from, to, strategy, reason) and the pods
// that were considered and left in place, each with why.
//
// A candidate becomes a move only when the pod may be evicted (protections,
// opt-in and opt-out annotations), no eviction limit is reached, its
// PodDisruptionBudgets have room, and the scheduler engine finds another
// node for its replacement on the working snapshot. Each move is applied to
// that snapshot before the next candidate is considered, so capacity, ports,
// spread and affinity are reserved move by move. The strategies run in
// rounds until none finds more to do. A pod is also kept when the cooldown
// holds its workload or the snapshot lacks its volumes; with replacements
// predicted (policy replacements: predicted), the engine places the
// replacement where its own scheduler would, and a move whose replacement
// would land back is skipped as futile. The planner is pure: the same
// snapshot and policy give the same plan.
package planner
