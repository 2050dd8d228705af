package cluster_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// A node's count goes on while each run finds it in the same class on a
// newer sample, as koordinator counts consecutive abnormalities.
func TestNextObservation(t *testing.T) {
	t0 := stateNow
	over2 := cluster.Observation{Strategy: "LowNodeUtilization", Node: "n1", Class: cluster.ObservedOver, Count: 2, At: t0}
	tests := []struct {
		name  string
		prev  cluster.Observation
		class string
		at    time.Time
		want  cluster.Observation
	}{
		{name: "first observation", prev: cluster.Observation{Strategy: "LowNodeUtilization", Node: "n1"}, class: cluster.ObservedOver, at: t0,
			want: cluster.Observation{Strategy: "LowNodeUtilization", Node: "n1", Class: cluster.ObservedOver, Count: 1, At: t0}},
		{name: "a newer sample, still over", prev: over2, class: cluster.ObservedOver, at: t0.Add(time.Minute),
			want: cluster.Observation{Strategy: "LowNodeUtilization", Node: "n1", Class: cluster.ObservedOver, Count: 3, At: t0.Add(time.Minute)}},
		{name: "the same sample read again", prev: over2, class: cluster.ObservedOver, at: t0, want: over2},
		{name: "an older sample than the one counted", prev: over2, class: cluster.ObservedOver, at: t0.Add(-time.Minute), want: over2},
		{name: "now under: another class starts over", prev: over2, class: cluster.ObservedUnder, at: t0.Add(time.Minute),
			want: cluster.Observation{Strategy: "LowNodeUtilization", Node: "n1", Class: cluster.ObservedUnder, Count: 1, At: t0.Add(time.Minute)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cluster.NextObservation(tt.prev, tt.class, tt.at); got != tt.want {
				t.Errorf("NextObservation() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// observationsOf returns n counts of distinct nodes, as random as real
// node names, of two strategies.
func observationsOf(n int) []cluster.Observation {
	rnd := rand.New(rand.NewPCG(3, 4))
	out := make([]cluster.Observation, n)
	for i := range out {
		out[i] = cluster.Observation{Strategy: []string{"HighNodeUtilization", "LowNodeUtilization"}[i%2],
			Node:  fmt.Sprintf("ip-10-%d-%d-%d.eu-west-1.compute.internal", rnd.IntN(256), rnd.IntN(256), rnd.IntN(256)),
			Class: []string{cluster.ObservedOver, cluster.ObservedUnder}[rnd.IntN(2)], Count: int32(1 + rnd.IntN(5)),
			At: stateNow.Add(-time.Duration(rnd.IntN(60)) * time.Second)}
	}
	return out
}

// The counts go into the state beside the evictions and the last-run
// record, plain while small and gzipped beyond, and stay bounded: with the
// evictions at their own bound the object stays below 1 MiB.
func TestEncodeObservations(t *testing.T) {
	tests := []struct {
		name        string
		n           int
		wantGzip    bool
		wantDropped bool
	}{
		{name: "a few nodes counted: plain JSON", n: 20},
		{name: "10,000 nodes of two strategies: gzipped, all kept", n: 10_000, wantGzip: true},
		{name: "60,000: the lowest counts dropped", n: 60_000, wantGzip: true, wantDropped: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cm := stateConfigMap()
			if _, err := cluster.EncodeEvictions(cm, evictions(3)); err != nil {
				t.Fatal(err)
			}
			all := observationsOf(tt.n)
			dropped, err := cluster.EncodeObservations(cm, all)
			if err != nil {
				t.Fatal(err)
			}
			if size := objectSize(cm); size > 200<<10 {
				t.Errorf("the counts weigh %d bytes, want at most 128 KiB beside a small state", size)
			}
			if _, gz := cm.BinaryData["observations.json.gz"]; gz != tt.wantGzip {
				t.Errorf("gzipped: %v, want %v", gz, tt.wantGzip)
			}
			if (dropped > 0) != tt.wantDropped {
				t.Errorf("dropped %d, want some: %v", dropped, tt.wantDropped)
			}
			if evs, err := cluster.DecodeEvictions(cm); err != nil || len(evs) != 3 || cm.Data["last-run.json"] == "" {
				t.Errorf("the evictions or the last-run record were lost: %d evictions, %v", len(evs), err)
			}
			got, err := cluster.DecodeObservations(cm)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.n-dropped {
				t.Fatalf("decoded %d counts, want %d", len(got), tt.n-dropped)
			}
			// What is kept are the highest counts, each as it was.
			want := slices.Clone(all)
			slices.SortStableFunc(want, func(a, b cluster.Observation) int {
				if a.Count != b.Count {
					return int(b.Count - a.Count)
				}
				return cluster.CompareObservations(a, b)
			})
			if !slices.Equal(got, want[:len(got)]) {
				t.Error("the decoded counts are not the highest of those encoded")
			}
		})
	}
}

// None removes the keys; a state written before the counts were kept
// reads as none; one of an unknown format is a *StateError.
func TestDecodeObservations(t *testing.T) {
	cm := stateConfigMap()
	if _, err := cluster.EncodeEvictions(cm, evictions(3)); err != nil {
		t.Fatal(err)
	}
	older := cm.DeepCopy()
	if got, err := cluster.DecodeObservations(older); err != nil || got != nil {
		t.Errorf("a state without counts: DecodeObservations() = %v, %v, want none", got, err)
	}
	if _, err := cluster.EncodeObservations(cm, observationsOf(2)); err != nil {
		t.Fatal(err)
	}
	if _, err := cluster.EncodeObservations(cm, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := cm.Data["observations.json"]; ok {
		t.Error("no counts left the key observations.json")
	}
	cm.Data["format"] = "v9"
	var bad *cluster.StateError
	if _, err := cluster.DecodeObservations(cm); !errors.As(err, &bad) {
		t.Errorf("format v9: error = %v, want a *StateError", err)
	}
	cm.Data["format"] = "v1"
	cm.Data["observations.json"] = "[{"
	if _, err := cluster.DecodeObservations(cm); !errors.As(err, &bad) {
		t.Errorf("broken JSON: error = %v, want a *StateError", err)
	}
}
