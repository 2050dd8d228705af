//go:build !unix

package scheduler

import "time"

// processCPUTime is not measured here; the benchmarks then report wall-clock
// figures only.
func processCPUTime() time.Duration { return 0 }
