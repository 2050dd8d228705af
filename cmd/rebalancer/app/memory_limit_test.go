package app

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestMemoryLimit(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name      string
		cgroup    string // memory.max, "" outside a cgroup
		dumpBytes int64
		want      int64 // 0: no limit
	}{
		{name: "run outside a container", want: 0},
		{name: "run in the chart's CronJob, limited to 512Mi", cgroup: "536870912\n", want: 512*mib - 512*mib/10},
		{name: "run in a container without a limit", cgroup: "max\n", want: 0},
		{name: "run in a cgroup v1 container without a limit", cgroup: "9223372036854771712\n", want: 0},
		{name: "plan on a 608 MiB dump", dumpBytes: 608 * mib, want: 912 * mib},
		{name: "plan on a small dump", dumpBytes: 2 * mib, want: 256 * mib},
		{name: "plan in a container smaller than the dump allows", cgroup: "536870912", dumpBytes: 608 * mib, want: 512*mib - 512*mib/10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cgroup int64
			inCgroup := false
			if tt.cgroup != "" {
				cgroup, inCgroup = parseCgroupLimit(tt.cgroup)
			}
			got, ok := memoryLimit(cgroup, inCgroup, tt.dumpBytes)
			if !ok {
				got = 0
			}
			if got != tt.want {
				t.Errorf("memoryLimit() = %d MiB, want %d MiB", got/mib, tt.want/mib)
			}
		})
	}
}

func TestRaisedLimit(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name                 string
		limit, live, ceiling int64
		want                 int64
	}{
		{name: "a kubectl dump's snapshot, well below its limit", limit: 912 * mib, live: 400 * mib, ceiling: math.MaxInt64, want: 912 * mib},
		{name: "a compact dump's snapshot, past its limit", limit: 256 * mib, live: 400 * mib, ceiling: math.MaxInt64, want: 800 * mib},
		{name: "in a container, never past its part", limit: 256 * mib, live: 400 * mib, ceiling: 460 * mib, want: 460 * mib},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := raisedLimit(tt.limit, tt.live, tt.ceiling); got != tt.want {
				t.Errorf("raisedLimit() = %d MiB, want %d MiB", got/mib, tt.want/mib)
			}
		})
	}
}

// A limit below the live heap is raised after a collection, and stays
// where it is once the watch is stopped.
func TestLiveHeapWatchRaisesTheLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	const limit = 1 << 20
	debug.SetMemoryLimit(limit)
	w := watchLiveHeap(limit, math.MaxInt64)
	live := make([]byte, 64<<20)
	deadline := time.Now().Add(10 * time.Second)
	// A collection that ended before live was allocated may raise the
	// limit first, to twice a smaller heap: wait for one that saw it.
	for debug.SetMemoryLimit(-1) < int64(len(live)) && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	w.stop()
	raised := debug.SetMemoryLimit(-1)
	if raised < int64(len(live)) {
		t.Fatalf("limit %d after collections with %d bytes live, want at least that", raised, len(live))
	}
	runtime.KeepAlive(live)
	debug.SetMemoryLimit(limit)
	runtime.GC()
	runtime.GC()
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("limit %d after the watch stopped, want %d", got, limit)
	}
}
