package engine

import (
	"sync"
	"testing"
	"time"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/synthetic"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// benchCluster is the 5,000-node, 150,000-pod cluster of the benchmarks,
// built once per test binary: building it is not what is measured.
var benchCluster = sync.OnceValue(func() *cluster.Snapshot {
	objs := synthetic.Generate(synthetic.Spec{Seed: 1, Nodes: 5000, Zones: 3, Pods: 150000})
	s, err := cluster.New(objs, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		panic(err)
	}
	return s
})

// benchmarkMoves measures what the planner does for each move: take a
// running pod of the given kind off its node, find where its replacement
// goes (never the node it leaves) and place it there.
func benchmarkMoves(b *testing.B, kind string, percentageOfNodesToScore int32) {
	base := benchCluster()
	var pods []*cluster.Pod
	for _, p := range base.Pods() {
		if p.Labels[synthetic.KindLabel] == kind && base.NodeOf(p) != nil {
			pods = append(pods, p)
		}
	}
	if len(pods) == 0 {
		b.Fatalf("no running %s pods", kind)
	}
	snap := base.Fork()
	profile := profile.DefaultProfile()
	profile.PercentageOfNodesToScore = &percentageOfNodesToScore
	e, err := New(profile)
	if err != nil {
		b.Fatal(err)
	}
	placed := 0
	i := 0
	var cpuAtStart time.Duration
	b.ReportAllocs()
	for b.Loop() {
		if i == 0 {
			cpuAtStart = processCPUTime()
		}
		p := pods[(i*7919)%len(pods)]
		i++
		from := snap.NodeOf(p)
		snap.Remove(p)
		res := e.Schedule(snap, p, Options{Exclude: []string{from.Name}})
		to := res.Node
		if to != "" {
			placed++
		} else {
			to = from.Name
		}
		if err := snap.Place(p, to); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pods/s")
	if cpu := processCPUTime() - cpuAtStart; cpu > 0 && cpuAtStart > 0 {
		b.ReportMetric(float64(b.N)/cpu.Seconds(), "pods/cpu-s")
	}
	b.ReportMetric(float64(placed)/float64(b.N), "placed/op")
}

// BenchmarkScheduleBasic places pods with requests and a nodeSelector or a
// toleration (and, as ReplicaSet pods, kube-scheduler's default spreading),
// with the default profile: kube-scheduler's adaptive
// percentageOfNodesToScore (10% of 5,000 nodes).
func BenchmarkScheduleBasic(b *testing.B) { benchmarkMoves(b, synthetic.KindBasic, 0) }

// BenchmarkScheduleAntiAffinity places pods with required hostname
// anti-affinity and a zone topology spread constraint.
func BenchmarkScheduleAntiAffinity(b *testing.B) {
	benchmarkMoves(b, synthetic.KindAntiAffinity, 0)
}

// The same with percentageOfNodesToScore: 100, every node filtered and
// every feasible node scored.
func BenchmarkScheduleBasicAllNodes(b *testing.B) { benchmarkMoves(b, synthetic.KindBasic, 100) }

func BenchmarkScheduleAntiAffinityAllNodes(b *testing.B) {
	benchmarkMoves(b, synthetic.KindAntiAffinity, 100)
}

// BenchmarkScheduleStateful places StatefulSet pods, each with a claim
// bound to a zonal disk: the volume filters run for every one.
func BenchmarkScheduleStateful(b *testing.B) { benchmarkMoves(b, synthetic.KindStateful, 0) }

// BenchmarkScheduleNoFit asks where pods go that fit on no other node (the
// GPU pods of a full pool, most of them): every node is filtered, and the
// message counts each one's reason, as for every pod a planner cannot
// move.
func BenchmarkScheduleNoFit(b *testing.B) {
	base := benchCluster()
	e, err := New(profile.DefaultProfile())
	if err != nil {
		b.Fatal(err)
	}
	snap := base.Fork()
	var pods []*cluster.Pod
	for _, p := range base.Pods() {
		from := snap.NodeOf(p)
		if from == nil || p.Labels[synthetic.KindLabel] != synthetic.KindBasic || len(pods) >= 200 {
			continue
		}
		snap.Remove(p)
		res := e.Schedule(snap, p, Options{Exclude: []string{from.Name}})
		if err := snap.Place(p, from.Name); err != nil {
			b.Fatal(err)
		}
		if res.Node == "" {
			pods = append(pods, p)
		}
	}
	if len(pods) == 0 {
		b.Fatal("every pod fits somewhere")
	}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		p := pods[i%len(pods)]
		i++
		from := snap.NodeOf(p)
		snap.Remove(p)
		if res := e.Schedule(snap, p, Options{Exclude: []string{from.Name}}); res.Node != "" {
			b.Fatalf("%s fits on %s", p.Key, res.Node)
		}
		if err := snap.Place(p, from.Name); err != nil {
			b.Fatal(err)
		}
	}
}
