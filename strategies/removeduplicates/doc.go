// Package removeduplicates is RemoveDuplicates: it spreads the replicas of
// one workload that pile up on a node over the nodes where they fit; its
// guard rule keeps other moves from piling them up again.
package removeduplicates
