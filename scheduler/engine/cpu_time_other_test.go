//go:build !unix

package engine

import "time"

// processCPUTime is not measured here; the benchmarks then report wall-clock
// figures only.
func processCPUTime() time.Duration { return 0 }
