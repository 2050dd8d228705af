//go:build unix

package planner

import (
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// BenchmarkPlanDump plans, again and again, a dump read from the file that
// $REBALANCER_BENCH_DUMP names, with every strategy but HighNodeUtilization
// and no limits (test/bench/every-strategy.yaml), each plan with a fresh
// engine as one `plan` command has. Unlike BenchmarkPlan's generated
// cluster, the snapshot's objects lie in memory as a decoder leaves them,
// as they do for `plan --snapshot`, so that its figures are those of the
// command without decoding the dump for each plan. It reports the process's
// CPU time per plan beside the wall time: on a shared machine the two part
// when other work takes the CPU. Without the variable it is skipped.
//
//	go run ./cluster/synthetic/cmd/gendump -nodes 5000 -o json > /tmp/d5k.json
//	REBALANCER_BENCH_DUMP=/tmp/d5k.json go test ./planner -run '^$' -bench PlanDump -benchtime 8x
func BenchmarkPlanDump(b *testing.B) {
	path := os.Getenv("REBALANCER_BENCH_DUMP")
	if path == "" {
		b.Skip("REBALANCER_BENCH_DUMP names no dump")
	}
	objs, _, err := cluster.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	snap, err := cluster.New(objs, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		b.Fatal(err)
	}
	pol := everyStrategy(b)
	runtime.GC()
	var cpu time.Duration
	b.ResetTimer()
	for b.Loop() {
		pl := &Planner{Policy: pol, Placer: newEngine(b)}
		before := cpuTime(b)
		pl.Plan(snap)
		cpu += cpuTime(b) - before
	}
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}

func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
