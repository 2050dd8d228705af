package app

import (
	"os"
	"runtime/debug"
)

// runGCPercent is the garbage collector's target for run: the heap may grow
// to 1.5 times what is live before a collection, not Go's default of twice.
// A run holds the whole cluster while planning allocates, short-lived, as
// much again several times over; with the default, half of the peak RSS of
// a 10,000-pod run is garbage waiting for a collection. The price, more
// frequent collections, is a small share of a run's CPU time, and a run
// with a memory limit (a CronJob's) fits in less.
const runGCPercent = 50

// tightenGC sets runGCPercent unless $GOGC chooses the target, and says
// whether it did.
func tightenGC() bool {
	if _, set := os.LookupEnv("GOGC"); set {
		return false
	}
	debug.SetGCPercent(runGCPercent)
	return true
}
