// Package framework is what a strategy is written against, built-in or
// registered from outside the repository: the cycle it sees (Cycle: the
// working snapshot as the moves planned so far leave it, the policy, the
// planner as Mover), what it proposes (Candidate) and the planner's answer
// (Outcome, with its Category, which the plan counts skips by), and
// Register, which lets policies configure a strategy and the planner run it.
//
// The planner and the guard find the optional parts of a strategy by type
// assertion, on these exported interfaces: GuardRuler (a GuardRule that
// keeps other strategies' moves within the strategy's condition, with
// Preparer and NodeRefuser for rules that look at the cycle first or refuse
// whole nodes), PlacementFree (the strategy need not run again after moves),
// Observer (the strategy looks at the cluster as read, before any move, and
// counts consecutive observations with Cycle.Observe), and, on the Mover,
// GroupChecker.
//
// A cycle keeps what it derives once for every strategy from what moves do
// not change (pod groups, topology domains, placements: tables.go); each
// strategy keeps its own caches in its state (Slot), not in a shared
// struct. Need, OfferInOrder and CanTake are how strategies propose groups
// of pods, order candidates and choose targets.
package framework
