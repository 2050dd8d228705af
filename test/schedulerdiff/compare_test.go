package schedulerdiff

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
)

// taintReason matches the engine's taint reason, which names the taint
// where kube-scheduler 1.35+ says only "taint(s)" (docs/scheduler.md): the
// same reason in other words.
var taintReason = regexp.MustCompile(`^node\(s\) had untolerated taint \{.*\}$`)

// reasons parses a FitError message, "0/16 nodes are available: 1 node(s)
// were unschedulable, 3 Insufficient cpu. preemption: …", into each reason
// and the number of nodes that gave it. A PreFilter rejection has no counts
// ("0/16 nodes are available: <message>."): its message counts as -1.
// What kube-scheduler's PostFilter plugins add after the first ". " ("no new
// claims to deallocate, preemption: …") says nothing about the filters and
// is dropped.
func reasons(msg string) map[string]int {
	out := map[string]int{}
	_, msg, ok := strings.Cut(msg, " nodes are available: ")
	if !ok {
		return out
	}
	msg, _, _ = strings.Cut(msg, ". ")
	msg = strings.TrimSuffix(msg, ".")
	for part := range strings.SplitSeq(msg, ", ") {
		n := -1
		if num, rest, ok := strings.Cut(part, " "); ok {
			if v, err := strconv.Atoi(num); err == nil {
				n, part = v, rest
			}
		}
		if taintReason.MatchString(part) {
			part = "node(s) had untolerated taint(s)"
		}
		if n < 0 {
			out[part] = -1
		} else {
			out[part] += n
		}
	}
	return out
}

// reasonsDiff says how two reason histograms differ, or "" when they are
// the same.
func reasonsDiff(kube, ours map[string]int) string {
	keys := slices.Sorted(maps.Keys(kube))
	for k := range ours {
		if _, ok := kube[k]; !ok {
			keys = append(keys, k)
		}
	}
	var diffs []string
	for _, k := range keys {
		kv, kok := kube[k]
		ev, eok := ours[k]
		switch {
		case !eok:
			diffs = append(diffs, fmt.Sprintf("only kube-scheduler: %d %q", kv, k))
		case !kok:
			diffs = append(diffs, fmt.Sprintf("only engine: %d %q", ev, k))
		case kv != ev:
			diffs = append(diffs, fmt.Sprintf("%q: kube-scheduler %d, engine %d", k, kv, ev))
		}
	}
	return strings.Join(diffs, "; ")
}

func TestReasons(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want map[string]int
	}{
		{
			msg: "0/16 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable, 14 Insufficient cpu. no new claims to deallocate, preemption: 0/16 nodes are available: 16 Preemption is not helpful for scheduling.",
			want: map[string]int{
				"node(s) had untolerated taint(s)": 1,
				"node(s) were unschedulable":       1,
				"Insufficient cpu":                 14,
			},
		},
		{
			msg:  "0/3 nodes are available: 2 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) had untolerated taint {edge: true}.",
			want: map[string]int{"node(s) had untolerated taint(s)": 3},
		},
		{
			msg:  "0/16 nodes are available: 1 Insufficient example.com/gpu, 15 node(s) didn't satisfy plugin(s) [NodeAffinity].",
			want: map[string]int{"Insufficient example.com/gpu": 1, "node(s) didn't satisfy plugin(s) [NodeAffinity]": 15},
		},
		{
			msg:  "0/16 nodes are available: pod affinity terms conflict.",
			want: map[string]int{"pod affinity terms conflict": -1},
		},
	} {
		got := reasons(tc.msg)
		if d := reasonsDiff(tc.want, got); d != "" {
			t.Errorf("reasons(%q): %s", tc.msg, d)
		}
	}
}

// TestCompare checks the comparison itself on made-up verdicts, so that a
// run with no disagreement means agreement and not a blind check.
func TestCompare(t *testing.T) {
	feasible := func(names ...string) engine.Result {
		res := engine.Result{Feasible: len(names), Node: names[0]}
		for _, n := range []string{"sd-00", "sd-01", "sd-02"} {
			nr := engine.NodeResult{Name: n, Plugin: "NodeAffinity", Reason: "node(s) didn't match Pod's node affinity/selector"}
			if slices.Contains(names, n) {
				nr = engine.NodeResult{Name: n, Feasible: true}
			}
			res.Nodes = append(res.Nodes, nr)
		}
		return res
	}
	none := engine.Result{Message: "0/3 nodes are available: 3 Insufficient cpu."}
	for _, tc := range []struct {
		name     string
		kubeNode string
		engine   engine.Result
		disagree bool
	}{
		{"bound on a feasible node", "sd-01", feasible("sd-00", "sd-01"), false},
		{"bound on a node the engine rejects", "sd-02", feasible("sd-00", "sd-01"), true},
		{"bound, engine finds nothing", "sd-00", none, true},
		{"pending, engine finds nothing", "", none, false},
		{"pending, engine finds a node", "", feasible("sd-00"), true},
	} {
		o := &outcome{spec: &spec{}, kubeNode: tc.kubeNode, engine: tc.engine}
		if tc.kubeNode == "" {
			o.kubeMessage = "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
		}
		compare(o)
		if got := o.problem != ""; got != tc.disagree {
			t.Errorf("%s: disagreement %t (%q), want %t", tc.name, got, o.problem, tc.disagree)
		}
		if o.reasonNote != "" {
			t.Errorf("%s: reasons differ: %s", tc.name, o.reasonNote)
		}
	}
}
