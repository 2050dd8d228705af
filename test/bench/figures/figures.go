// Package figures holds what the benchmark programs under test/bench share
// to summarize their runs: medians, sizes in MiB, and the tail of a
// command's output when it fails.
package figures

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Median is the middle of xs (the mean of the two middle ones for an even
// count), or zero for none. xs is not reordered.
func Median[T int64 | float64 | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// MiB prints a byte count in whole MiB.
func MiB(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

// LastLines is the last n lines of s: what to show of a failed command.
func LastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
