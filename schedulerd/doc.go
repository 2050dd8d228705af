// Package schedulerd is the live scheduler of `rebalancer schedule`: it
// watches the pending pods that name it, places them with the engine of
// package scheduler/engine, binds them, and follows the plan hand-off, so that the
// replacement of a pod rebalancer evicted lands where the plan said.
//
// It is the edge where scheduling meets the API server (informers, bindings,
// events, the state ConfigMap); package scheduler/engine stays pure and never
// imports client-go.
package schedulerd
