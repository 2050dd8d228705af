// Package topologyspread is RemovePodsViolatingTopologySpreadConstraint:
// it moves the fewest pods that bring each workload's topology spread
// constraints back within their maxSkew; its guard rule keeps other moves
// from breaking a constraint.
package topologyspread
