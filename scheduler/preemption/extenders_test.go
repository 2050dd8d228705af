package preemption

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/schedulertest"
)

// refusingExtender turns down the nodes it names, as unresolvable or not.
type refusingExtender struct {
	refuse       map[string]string
	unresolvable bool
}

func (x refusingExtender) Name() string                  { return "http://extender.test" }
func (x refusingExtender) IsInterested(*corev1.Pod) bool { return true }
func (x refusingExtender) IsIgnorable() bool             { return false }
func (x refusingExtender) Weight() int64                 { return 1 }
func (x refusingExtender) NodeCacheCapable() bool        { return true }
func (x refusingExtender) Prioritize(*cluster.Pod, []*cluster.Node) (map[string]int64, error) {
	return nil, nil
}
func (x refusingExtender) SupportsPreemption() bool { return false }
func (x refusingExtender) ProcessPreemption(*cluster.Pod, map[string]engine.Victims) (map[string]engine.MetaVictims, error) {
	return nil, errors.New("refusingExtender has no preemptVerb")
}

func (x refusingExtender) Filter(_ *cluster.Pod, nodes []*cluster.Node) (engine.ExtenderFilterResult, error) {
	res := engine.ExtenderFilterResult{Failed: map[string]string{}, FailedAndUnresolvable: map[string]string{}}
	for _, n := range nodes {
		why, refused := x.refuse[n.Name]
		switch {
		case !refused:
			res.Nodes = append(res.Nodes, n.Name)
		case x.unresolvable:
			res.FailedAndUnresolvable[n.Name] = why
		default:
			res.Failed[n.Name] = why
		}
	}
	return res, nil
}

// A node the plugins pass but an extender turns down is no place for the
// pod: kube-scheduler's PostFilter runs, and preempts elsewhere. Node "b"
// has room, so removing pods there cannot help whether the extender calls
// it resolvable or not; the preemption happens on the full node "a".
func TestPreemptAroundANodeAnExtenderTurnedDown(t *testing.T) {
	for _, unresolvable := range []bool{false, true} {
		s := ct.Snapshot(t, ct.Node("a"), ct.Node("b"),
			running("low", "a", 1, "4", time.Hour),
			preemptor(100, "2"))
		e := schedulertest.DefaultEngine(t)
		e.SetExtenders([]engine.Extender{refusingExtender{refuse: map[string]string{"b": "reserved for batch"}, unresolvable: unresolvable}})
		pod := schedulertest.Incoming(t, s)
		res := e.Schedule(s, pod, engine.Options{})
		if res.Node != "" {
			t.Fatalf("unresolvable=%v: the pod fits on %s; the extender should have turned b down", unresolvable, res.Node)
		}
		got := Decide(e, s, pod, res)
		if got.Node != "a" || !slices.Equal(keys(got.Victims), []string{"default/low"}) {
			t.Errorf("unresolvable=%v: Decide chose %q with victims %v (%+v); want a with [default/low]", unresolvable, got.Node, keys(got.Victims), got)
		}
	}
}

// preemptingExtender is an extender with a preemptVerb that answers every
// call with the same nodes and victims, or with err; it records the
// candidates it was sent.
type preemptingExtender struct {
	ignorable    bool
	uninterested bool
	noVerb       bool
	// answer names the victims it keeps on each node, by pod name in
	// namespace default; violations are the PDB violations it counts.
	answer     map[string][]string
	violations map[string]int
	err        error

	saw []string
}

func (x *preemptingExtender) Name() string                  { return "http://preempting.test" }
func (x *preemptingExtender) IsInterested(*corev1.Pod) bool { return !x.uninterested }
func (x *preemptingExtender) IsIgnorable() bool             { return x.ignorable }
func (x *preemptingExtender) Weight() int64                 { return 1 }
func (x *preemptingExtender) NodeCacheCapable() bool        { return true }
func (x *preemptingExtender) SupportsPreemption() bool      { return !x.noVerb }
func (x *preemptingExtender) Prioritize(*cluster.Pod, []*cluster.Node) (map[string]int64, error) {
	return nil, nil
}

func (x *preemptingExtender) Filter(_ *cluster.Pod, nodes []*cluster.Node) (engine.ExtenderFilterResult, error) {
	res := engine.ExtenderFilterResult{}
	for _, n := range nodes {
		res.Nodes = append(res.Nodes, n.Name)
	}
	return res, nil
}

func (x *preemptingExtender) ProcessPreemption(_ *cluster.Pod, cands map[string]engine.Victims) (map[string]engine.MetaVictims, error) {
	x.saw = []string{}
	for name, v := range cands {
		x.saw = append(x.saw, fmt.Sprintf("%s: %v (%d)", name, keys(v.Pods), v.PDBViolations))
	}
	slices.Sort(x.saw)
	if x.err != nil {
		return nil, x.err
	}
	out := map[string]engine.MetaVictims{}
	for node, names := range x.answer {
		v := engine.MetaVictims{PDBViolations: x.violations[node]}
		for _, n := range names {
			v.UIDs = append(v.UIDs, types.UID("default/"+n))
		}
		out[node] = v
	}
	return out, nil
}

// Before DefaultPreemption picks a node, it asks the extenders with a
// preemptVerb which candidates and victims to keep, as kube-scheduler's
// callExtenders does. Each node has 4 CPUs and the pod asks for 2: on a
// and b one pod goes (priority 1 on a, 2 on b), on c the later-started of
// two. Left alone, DefaultPreemption picks c, whose victim started last.
func TestPreemptAsksExtendersWithAPreemptVerb(t *testing.T) {
	const sent = "a: [default/a-low] (0)|b: [default/b-low] (0)|c: [default/c-new] (0)"
	const filters = "0/3 nodes are available: 3 Insufficient cpu."
	cases := []struct {
		name      string
		extenders []*preemptingExtender
		node      string
		victims   []string
		reason    string
		err       string
		// saw is what each extender was sent, "|"-joined; empty when it
		// was not asked.
		saw []string
	}{
		{
			name:      "an extender without a preemptVerb is not asked",
			extenders: []*preemptingExtender{{noVerb: true, err: errors.New("asked")}},
			node:      "c", victims: []string{"default/c-new"},
			saw: []string{""},
		},
		{
			name:      "an extender not interested in the pod is not asked",
			extenders: []*preemptingExtender{{uninterested: true, err: errors.New("asked")}},
			node:      "c", victims: []string{"default/c-new"},
			saw: []string{""},
		},
		{
			name:      "the extender narrows the candidates, and the pick runs on what it kept",
			extenders: []*preemptingExtender{{answer: map[string][]string{"a": {"a-low"}, "b": {"b-low"}}}},
			node:      "a", victims: []string{"default/a-low"},
			saw: []string{sent},
		},
		{
			name:      "the extender changes the victims, reported most important first",
			extenders: []*preemptingExtender{{answer: map[string][]string{"c": {"c-new", "c-old"}}}},
			node:      "c", victims: []string{"default/c-old", "default/c-new"},
			saw: []string{sent},
		},
		{
			name:      "the PDB violations the extender counts decide the pick",
			extenders: []*preemptingExtender{{answer: map[string][]string{"a": {"a-low"}, "b": {"b-low"}}, violations: map[string]int{"a": 1}}},
			node:      "b", victims: []string{"default/b-low"},
			saw: []string{sent},
		},
		{
			name: "each extender is sent what the one before kept",
			extenders: []*preemptingExtender{
				{answer: map[string][]string{"a": {"a-low"}, "c": {"c-new"}}},
				{answer: map[string][]string{"a": {"a-low"}}},
			},
			node: "a", victims: []string{"default/a-low"},
			saw: []string{sent, "a: [default/a-low] (0)|c: [default/c-new] (0)"},
		},
		{
			name: "an ignorable extender's error is skipped",
			extenders: []*preemptingExtender{
				{ignorable: true, err: errors.New("connection refused")},
			},
			node: "c", victims: []string{"default/c-new"},
			saw: []string{sent},
		},
		{
			name:      "a non-ignorable extender's error ends preemption",
			extenders: []*preemptingExtender{{err: errors.New("connection refused")}},
			reason:    "connection refused", err: "connection refused",
			saw: []string{sent},
		},
		{
			name: "an empty answer leaves no candidate, and later extenders are not asked",
			extenders: []*preemptingExtender{
				{answer: map[string][]string{}},
				{err: errors.New("asked")},
			},
			reason: "no candidate node for preemption",
			saw:    []string{sent, ""},
		},
		{
			name:      "a node without victims is an error from a non-ignorable extender",
			extenders: []*preemptingExtender{{answer: map[string][]string{"a": {}, "b": {"b-low"}}}},
			reason:    `expected at least one victim pod on node "a"`, err: `expected at least one victim pod on node "a"`,
			saw: []string{sent},
		},
		{
			name:      "a node without victims is dropped by an ignorable extender",
			extenders: []*preemptingExtender{{ignorable: true, answer: map[string][]string{"a": {}, "b": {"b-low"}}}},
			node:      "b", victims: []string{"default/b-low"},
			saw: []string{sent},
		},
		{
			name:      "a victim that is not on its node is the extender's error",
			extenders: []*preemptingExtender{{answer: map[string][]string{"a": {"b-low"}}}},
			reason:    "extender: http://preempting.test claims to preempt pod (UID: default/b-low) on node: a, but the pod is not found on that node",
			err:       "extender: http://preempting.test claims to preempt pod (UID: default/b-low) on node: a, but the pod is not found on that node",
			saw:       []string{sent},
		},
		{
			name:      "which an ignorable extender is skipped for",
			extenders: []*preemptingExtender{{ignorable: true, answer: map[string][]string{"a": {"b-low"}}}},
			node:      "c", victims: []string{"default/c-new"},
			saw: []string{sent},
		},
		{
			name:      "a node that is not in the cluster is the extender's error",
			extenders: []*preemptingExtender{{answer: map[string][]string{"z": {"a-low"}}}},
			reason:    `extender: http://preempting.test names node "z" for preemption, which is not in the cluster`,
			err:       `extender: http://preempting.test names node "z" for preemption, which is not in the cluster`,
			saw:       []string{sent},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := ct.Snapshot(t, ct.Node("a"), ct.Node("b"), ct.Node("c"),
				running("a-low", "a", 1, "4", time.Hour),
				running("b-low", "b", 2, "4", time.Hour),
				running("c-old", "c", 1, "2", 2*time.Hour), running("c-new", "c", 1, "2", 30*time.Minute),
				preemptor(100, "2"))
			e := schedulertest.DefaultEngine(t)
			exts := make([]engine.Extender, len(tc.extenders))
			for k, x := range tc.extenders {
				exts[k] = x
			}
			e.SetExtenders(exts)
			pod := schedulertest.Incoming(t, s)
			res := e.Schedule(s, pod, engine.Options{})
			if res.Node != "" || res.Message != filters {
				t.Fatalf("Schedule: node %q, message %q; want none and %q", res.Node, res.Message, filters)
			}
			got := Decide(e, s, pod, res)
			message := filters
			switch {
			case tc.err != "":
				message += " preemption: " + tc.err
			case tc.reason != "":
				message += " no new claims to deallocate, preemption: " + tc.reason
			}
			if got.Node != tc.node || !slices.Equal(keys(got.Victims), orEmpty(tc.victims)) ||
				got.Reason != tc.reason || got.Error != tc.err || got.Message != message {
				t.Errorf("Preempt: node %q, victims %v, reason %q, error %q, message %q;\nwant node %q, victims %v, reason %q, error %q, message %q",
					got.Node, keys(got.Victims), got.Reason, got.Error, got.Message, tc.node, tc.victims, tc.reason, tc.err, message)
			}
			for k, x := range tc.extenders {
				if saw := strings.Join(x.saw, "|"); saw != tc.saw[k] {
					t.Errorf("extender %d was sent %q; want %q", k, saw, tc.saw[k])
				}
			}
		})
	}
}

// kube-scheduler reads an extender's victims in the order it gives them,
// but takes the start time of the highest-priority ones wherever they
// are. The pod needs a whole node, x or y; the extender lists each node's
// victims least important first. Every criterion ties up to the start
// time of the priority-3 victims, and y's started last.
func TestPreemptPicksAmongAnExtendersVictimsByTheirHighestPriority(t *testing.T) {
	s := ct.Snapshot(t, ct.Node("x"), ct.Node("y"),
		running("x-1", "x", 1, "2", 30*time.Minute), running("x-3", "x", 3, "2", 5*time.Hour),
		running("y-1", "y", 1, "2", 2*time.Hour), running("y-3", "y", 3, "2", 10*time.Minute),
		preemptor(100, "4"))
	e := schedulertest.DefaultEngine(t)
	e.SetExtenders([]engine.Extender{&preemptingExtender{answer: map[string][]string{"x": {"x-1", "x-3"}, "y": {"y-1", "y-3"}}}})
	pod := schedulertest.Incoming(t, s)
	got := Decide(e, s, pod, e.Schedule(s, pod, engine.Options{}))
	if got.Node != "y" || !slices.Equal(keys(got.Victims), []string{"default/y-3", "default/y-1"}) {
		t.Errorf("Decide chose %q with victims %v (%s); want y with [default/y-3 default/y-1]", got.Node, keys(got.Victims), got.Message)
	}
}
