package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// What the strategies recorded, run by run, and what the plan lists.
func TestSkippedPodsAreListedOnce(t *testing.T) {
	const (
		dup = "RemoveDuplicates"
		low = "LowNodeUtilization"
	)
	noFit := func(s, pod string) Skip {
		return Skip{Pod: pod, Strategy: s, Category: NoFit, Reason: "no other node can take it"}
	}
	pdb := func(s, pod string) Skip {
		return Skip{Pod: pod, Strategy: s, Category: PDBBudget, Reason: "PodDisruptionBudget allows no more disruptions"}
	}
	protected := func(s, pod string) Skip {
		return Skip{Pod: pod, Strategy: s, Category: Protected, Reason: "system-critical"}
	}
	belowMin := func(s, pod string) Skip {
		return Skip{Pod: pod, Strategy: s, Category: BelowMinImprovement, Reason: "would lower n1's cpu by 0.8 points; minImprovement is 2"}
	}
	// run is one run of a strategy: what it skipped, and whether the
	// cycle could evict nothing more when it ended.
	type run struct {
		strategy string
		skips    []Skip
		cutShort bool
	}
	tests := []struct {
		name  string
		runs  []run
		moved []string
		want  []string // "pod strategy category"
	}{
		{
			name: "a pod two strategies skipped for no-fit: the first strategy in run order",
			runs: []run{{low, []Skip{noFit(low, "shop/web-0")}, false}, {dup, []Skip{noFit(dup, "shop/web-0")}, false}},
			want: []string{"shop/web-0 RemoveDuplicates no-fit"},
		},
		{
			name: "a pod two strategies skipped, one for no-fit: the reason that keeps it from any eviction",
			runs: []run{{dup, []Skip{noFit(dup, "shop/web-0")}, false}, {low, []Skip{pdb(low, "shop/web-0")}, false}},
			want: []string{"shop/web-0 LowNodeUtilization pdb"},
		},
		{
			name: "a pod one strategy found not worth moving and another could not evict: the reason that keeps it from any eviction",
			runs: []run{{dup, []Skip{belowMin(dup, "shop/web-0")}, false}, {low, []Skip{pdb(low, "shop/web-0")}, false}},
			want: []string{"shop/web-0 LowNodeUtilization pdb"},
		},
		{
			name: "below-min-improvement and no-fit are of a kind: the first strategy in run order",
			runs: []run{{dup, []Skip{belowMin(dup, "shop/web-0")}, false}, {low, []Skip{noFit(low, "shop/web-0")}, false}},
			want: []string{"shop/web-0 RemoveDuplicates below-min-improvement"},
		},
		{
			name: "two reasons that keep it from any eviction: the first strategy in run order",
			runs: []run{{dup, []Skip{pdb(dup, "shop/web-0")}, false}, {low, []Skip{protected(low, "shop/web-0")}, false}},
			want: []string{"shop/web-0 RemoveDuplicates pdb"},
		},
		{
			name:  "a pod one strategy skipped and a later one moved is not skipped",
			runs:  []run{{dup, []Skip{noFit(dup, "shop/web-0"), noFit(dup, "shop/web-1")}, false}},
			moved: []string{"shop/web-0"},
			want:  []string{"shop/web-1 RemoveDuplicates no-fit"},
		},
		{
			name: "a strategy's later run replaces what its earlier run skipped",
			runs: []run{{dup, []Skip{noFit(dup, "shop/web-0")}, false}, {dup, []Skip{noFit(dup, "shop/web-1")}, false}},
			want: []string{"shop/web-1 RemoveDuplicates no-fit"},
		},
		{
			name: "a later run cut short by limits.total keeps what the earlier run skipped",
			runs: []run{{dup, []Skip{noFit(dup, "shop/web-0")}, false}, {dup, []Skip{noFit(dup, "shop/web-1")}, true}},
			want: []string{"shop/web-0 RemoveDuplicates no-fit", "shop/web-1 RemoveDuplicates no-fit"},
		},
		{
			name: "a pod both runs skipped, the later cut short, keeps the later reason",
			runs: []run{{dup, []Skip{noFit(dup, "shop/web-0")}, false}, {dup, []Skip{pdb(dup, "shop/web-0")}, true}},
			want: []string{"shop/web-0 RemoveDuplicates pdb"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSkips([]string{dup, low})
			for _, r := range tt.runs {
				s.begin(r.strategy)
				for _, k := range r.skips {
					s.put(r.strategy, k)
				}
				s.end(r.strategy, r.cutShort)
			}
			moved := make(map[string]bool)
			for _, m := range tt.moved {
				moved[m] = true
			}
			var got []string
			for _, k := range s.list(moved) {
				got = append(got, fmt.Sprintf("%s %s %s", k.Pod, k.Strategy, k.Category))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("skipped:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

// The pods a strategy counts rather than lists follow its runs as its
// skipped pods do: a later run replaces them, one cut short by limits.total
// keeps the earlier run's beside its own; each is counted once, and a pod
// that moved is not.
func TestCountedPodsFollowTheRuns(t *testing.T) {
	const low = "LowNodeUtilization"
	pod := func(name string) *cluster.Pod {
		snap := ct.Snapshot(t, ct.Node("n1"), ct.Pod("shop", name).On("n1"))
		return snap.Pod("shop/" + name)
	}
	a, b := pod("a"), pod("b")
	noFit := func(p *cluster.Pod) Skip {
		return Skip{Pod: p.Key, Strategy: low, Category: NoFit, Reason: "no room for " + p.Name}
	}
	type run struct {
		pods     []*cluster.Pod
		cutShort bool
	}
	tests := []struct {
		name  string
		runs  []run
		moved string
		want  string // counts, then the first pod's reason
	}{
		{"a later run replaces the earlier one's", []run{{[]*cluster.Pod{a}, false}, {[]*cluster.Pod{b}, false}}, "", "map[no-fit:1] no room for b"},
		{"a later run cut short keeps the earlier one's", []run{{[]*cluster.Pod{a}, false}, {[]*cluster.Pod{b, a}, true}}, "", "map[no-fit:2] no room for a"},
		{"a pod that moved is not counted", []run{{[]*cluster.Pod{a, b}, false}}, "shop/a", "map[no-fit:1] no room for b"},
		{"nothing counted", []run{{nil, false}}, "", "map[] "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &cycle{skips: newSkips([]string{low})}
			for _, r := range tt.runs {
				c.skips.begin(low)
				for _, p := range r.pods {
					k := noFit(p)
					c.skips.count(low, p, k.Category, k.Reason)
				}
				c.skips.end(low, r.cutShort)
			}
			counts, first := c.unlisted(low, map[string]bool{tt.moved: true})
			if got := fmt.Sprintf("%v %s", counts, first.Reason); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
