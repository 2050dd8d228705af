package app

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"

	"k8s.io/klog/v2"
)

// A snapshot is one large heap that lives as long as the command, and the
// garbage collector's default lets the heap grow to twice what is live
// before it collects: a 150,000-pod snapshot decoded from a 608 MiB dump
// holds about 450 MB, and the process would peak near a gigabyte because of
// garbage that a collection would have freed. A soft memory limit makes the
// collector work harder only when the heap nears it; it never makes an
// allocation fail. GOMEMLIMIT, when set, is the user's and wins.
//
// The dump's part of the limit holds while the dump is decoded, which
// leaves garbage at every object; planning keeps what it allocates for
// longer, and under that limit the collector would run all the time (a
// 5,000-node plan took 14.6 s instead of 5.5 s, for a peak of 903 MiB
// instead of 1,069 MiB), so it is lifted before planning. The container's
// part stays.

// snapshotHeapPerDumpByte is the heap a dump's snapshot may take before the
// collector works harder, per byte of the dump: the snapshot keeps less
// than the dump's text (a YAML dump's pod is 4 KiB, the decoded pod 3 KiB
// of which replicas share much), and planning needs a fraction of it more.
const snapshotHeapPerDumpByte = 1.5

// minMemoryLimit keeps a small dump's limit from making the collector run
// all the time: planning allocates tens of megabytes even for a few pods.
const minMemoryLimit = 256 << 20

// limitMemory sets a soft memory limit for a command that builds a
// snapshot from a dump of dumpBytes (0 for none), unless GOMEMLIMIT is set.
// The function it returns lifts the dump's part of the limit, once the
// snapshot is built, down to the container's.
func limitMemory(dumpBytes int64) (lift func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	cgroup, inCgroup := cgroupMemoryLimit()
	var watch *liveHeapWatch
	if limit, ok := memoryLimit(cgroup, inCgroup, dumpBytes); ok {
		debug.SetMemoryLimit(limit)
		klog.V(2).InfoS("Soft memory limit", "bytes", limit)
		if dumpBytes > 0 {
			ceiling, _ := memoryLimit(cgroup, inCgroup, 0)
			watch = watchLiveHeap(limit, ceiling)
		}
	}
	return func() {
		watch.stop()
		limit, ok := memoryLimit(cgroup, inCgroup, 0)
		if !ok {
			limit = math.MaxInt64
		}
		debug.SetMemoryLimit(limit)
	}
}

// The dump's part of the limit assumes that its snapshot holds less than
// its text, as it does of kubectl's indented output. A compact dump holds
// more than its size, and a limit below the live heap makes the collector
// run all the time. So after each collection the limit is raised, when it
// must be, to leave the live heap as much again, as the collector's default
// (GOGC=100) would; half of that cost a compact dump's read more in CPU
// than it saved in peak (docs/performance.md).
type liveHeapWatch struct {
	mu      sync.Mutex
	limit   int64
	ceiling int64
	stopped bool
}

// collectionSentinel is an object whose only use is to be collected; it
// holds a pointer so that it is not batched with other small objects,
// which could keep it alive.
type collectionSentinel struct{ _ *byte }

func watchLiveHeap(limit, ceiling int64) *liveHeapWatch {
	w := &liveHeapWatch{limit: limit, ceiling: ceiling}
	w.arm()
	return w
}

func (w *liveHeapWatch) arm() {
	runtime.AddCleanup(new(collectionSentinel), (*liveHeapWatch).collected, w)
}

func (w *liveHeapWatch) collected() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	if raised := raisedLimit(w.limit, liveHeap(), w.ceiling); raised != w.limit {
		w.limit = raised
		debug.SetMemoryLimit(raised)
	}
	w.arm()
}

func (w *liveHeapWatch) stop() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
}

// raisedLimit is the limit that leaves a live heap of live bytes as much
// again, never lower than limit nor higher than ceiling.
func raisedLimit(limit, live, ceiling int64) int64 {
	return max(limit, min(2*live, ceiling))
}

func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// memoryLimit is the lower of what the container may use (its cgroup's
// memory limit, less a tenth for what is not heap) and, for a dump,
// snapshotHeapPerDumpByte times its size; none when neither applies.
func memoryLimit(cgroup int64, inCgroup bool, dumpBytes int64) (int64, bool) {
	limit := int64(math.MaxInt64)
	if inCgroup {
		limit = cgroup - cgroup/10
	}
	if dumpBytes > 0 {
		limit = min(limit, max(int64(float64(dumpBytes)*snapshotHeapPerDumpByte), minMemoryLimit))
	}
	return limit, limit != math.MaxInt64
}

// cgroupFiles are where cgroup v2 and v1 say how much memory the
// container may use.
var cgroupFiles = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// cgroupMemoryLimit reads the container's memory limit; "max", or v1's
// page-rounded largest value, is none.
func cgroupMemoryLimit() (int64, bool) {
	for _, f := range cgroupFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		return parseCgroupLimit(string(data))
	}
	return 0, false
}

func parseCgroupLimit(s string) (int64, bool) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || v <= 0 || v >= math.MaxInt64/2 {
		return 0, false
	}
	return v, true
}
