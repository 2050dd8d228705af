package planner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/synthetic"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// TestCachesChangeNoPlan plans a generated cluster with every strategy
// (make bench's policy, test/bench/every-strategy.yaml, and the same with
// HighNodeUtilization), once with every cache of the planner, the
// strategies and the scheduler engine, once with all of them off, and
// requires the same plan. It does so for the generated objects and for the
// same objects written as a dump and read back, since the caches that
// recognise replicas do it by what the generator and the decoder share.
// With the caches off every decision derives the engine's tables again,
// so the race detector's build (make unit) and -short plan smaller
// clusters.
func TestCachesChangeNoPlan(t *testing.T) {
	every := everyStrategyPolicy(t, nil)
	high := everyStrategyPolicy(t, func(s string) string {
		low := "  LowNodeUtilization:\n    thresholds: {cpu: 20, memory: 20, pods: 20}\n    targetThresholds: {cpu: 50, memory: 50, pods: 50}\n"
		if !strings.Contains(s, low) {
			t.Fatal("every-strategy.yaml's LowNodeUtilization is not as this test expects")
		}
		return strings.Replace(s, low, "  HighNodeUtilization:\n    thresholds: {cpu: 40, memory: 40, pods: 40}\n", 1)
	})
	// HighNodeUtilization moves most pods of the cluster, each a search
	// that derives the engine's tables again without caches: it plans a
	// smaller cluster. So does the race detector's build (make unit).
	nodes, highNodes := 1000, 300
	if raceDetector || testing.Short() {
		nodes, highNodes = 120, 120
	}
	dumps := make(map[int]cluster.Objects)
	for _, tc := range []struct {
		name    string
		nodes   int
		decoded bool
		pol     *policy.Policy
	}{
		{"generated/every-strategy", nodes, false, every},
		{"dump/every-strategy", nodes, true, every},
		{"dump/HighNodeUtilization-for-LowNodeUtilization", highNodes, true, high},
	} {
		t.Run(fmt.Sprintf("%s/nodes=%d", tc.name, tc.nodes), func(t *testing.T) {
			spec := synthetic.Spec{Seed: 1, Nodes: tc.nodes, Pods: tc.nodes * 30, Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			objs := synthetic.Generate(spec)
			if tc.decoded {
				d, ok := dumps[tc.nodes]
				if !ok {
					d = writeAndRead(t, objs)
					dumps[tc.nodes] = d
				}
				objs = d
			}
			snap, err := cluster.New(objs, spec.Now)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			cached := planJSON(t, tc.pol, snap, false)
			mid := time.Now()
			fresh := planJSON(t, tc.pol, snap, true)
			t.Logf("planned in %s with caches, %s without", mid.Sub(start).Round(time.Millisecond), time.Since(mid).Round(time.Millisecond))
			if !bytes.Equal(cached, fresh) {
				t.Errorf("the plan with caches differs from the plan without:\n%s", firstDifference(cached, fresh))
			}
			var p Plan
			if err := json.Unmarshal(cached, &p); err != nil {
				t.Fatal(err)
			}
			t.Logf("%d moves, %d skips", len(p.Moves), len(p.Skipped))
			if len(p.Moves) == 0 {
				t.Error("no moves: the cluster no longer exercises the strategies")
			}
		})
	}
}

// writeAndRead writes the objects as a dump and reads them back, as
// `plan --snapshot` does.
func writeAndRead(t *testing.T, objs cluster.Objects) cluster.Objects {
	t.Helper()
	var buf bytes.Buffer
	if err := synthetic.WriteList(&buf, objs, synthetic.DumpOptions{Format: synthetic.JSON, Served: true}); err != nil {
		t.Fatal(err)
	}
	dump := filepath.Join(t.TempDir(), "dump.json")
	if err := os.WriteFile(dump, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	decoded, _, err := cluster.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	return decoded
}

// everyStrategyPolicy is test/bench/every-strategy.yaml, edited by edit
// when not nil.
func everyStrategyPolicy(t *testing.T, edit func(string) string) *policy.Policy {
	t.Helper()
	data, err := os.ReadFile("../test/bench/every-strategy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		data = []byte(edit(string(data)))
	}
	pol, err := policy.Load(data, "every-strategy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return pol
}

func planJSON(t *testing.T, pol *policy.Policy, snap *cluster.Snapshot, noCache bool) []byte {
	t.Helper()
	e, err := engine.New(profile.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	e.NoCache = noCache
	plan := (&Planner{Policy: pol, Placer: e, NoCache: noCache}).Plan(snap)
	b, err := json.MarshalIndent(plan, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// firstDifference shows the lines around the first line where a and b
// differ.
func firstDifference(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; i < len(la) || i < len(lb); i++ {
		if i >= len(la) || i >= len(lb) || !bytes.Equal(la[i], lb[i]) {
			from := max(0, i-3)
			var out bytes.Buffer
			for j := from; j < i+4; j++ {
				if j < len(la) {
					out.WriteString("cached: " + string(la[j]) + "\n")
				}
				if j < len(lb) {
					out.WriteString("fresh:  " + string(lb[j]) + "\n")
				}
			}
			return out.String()
		}
	}
	return ""
}
