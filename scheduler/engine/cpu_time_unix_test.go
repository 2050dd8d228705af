//go:build unix

package engine

import (
	"syscall"
	"time"
)

// processCPUTime is the CPU time the test process has used, user and
// system: on a machine shared with other work it measures the engine's cost
// where wall-clock time also measures the neighbours.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
