// Package policy defines the RebalancePolicy: what rebalancer may evict,
// which strategies run and with which arguments, the eviction limits, and
// how those settings are tuned per namespace.
//
// Load decodes a policy strictly (an unknown field is an error), fills in
// defaults and validates it, reporting every problem at once with the file
// name, the field path and the bad value. The result answers one question for
// the rest of the program: which settings apply to a pod of a given
// namespace (Policy.For).
//
// The strategies a policy may configure are those registered with
// RegisterStrategy, in the order they run, each with the constructor of
// its arguments and the descheduler plugin it stands for; package
// strategies registers the built-in ones from its table, so a program
// loads policies with that package linked in (the planner imports it). The
// arguments of each built-in strategy are defined, defaulted and validated
// in the strategy's own package (strategies/<name>/args.go), with the
// helpers exported here (ValidateChoices, ValidateNames, the namespace,
// selector and threshold checks), so that their messages read alike.
//
// Convert translates a descheduler policy (v1alpha1 or v1alpha2) into a
// RebalancePolicy (descheduler*.go) for `rebalancer convert`.
package policy
