package strategies_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/planner"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/scheduler"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// plan runs the planner, with the real scheduler engine, on a snapshot
// under a policy given as YAML after the header.
func plan(t *testing.T, snap *cluster.Snapshot, policyYAML string) *planner.Plan {
	t.Helper()
	pol, err := policy.Load([]byte("apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\ncooldown: 0s\n"+policyYAML), "policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e, err := scheduler.NewEngine(profile.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	return (&planner.Planner{Policy: pol, Placer: e}).Plan(snap)
}

// moves lists "pod from→to", sorted, so that a test states exactly what
// moves and nothing else.
func moves(p *planner.Plan) []string {
	out := []string{}
	for _, m := range p.Moves {
		out = append(out, fmt.Sprintf("%s %s→%s", m.Pod, m.From, m.To))
	}
	sort.Strings(out)
	return out
}

// movedFrom lists the moved pods and where they came from, sorted, for
// tests where the target is a detail of the scheduler's scoring.
func movedFrom(p *planner.Plan) []string {
	out := []string{}
	for _, m := range p.Moves {
		out = append(out, m.Pod+" "+m.From)
	}
	sort.Strings(out)
	return out
}

func equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n  %s\nwant:\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// movedTo lists the targets of the moves, sorted.
func movedTo(p *planner.Plan) []string {
	out := []string{}
	for _, m := range p.Moves {
		out = append(out, m.To)
	}
	sort.Strings(out)
	return out
}

// order lists the moved pods in the order the plan moves them.
func order(p *planner.Plan) []string {
	out := []string{}
	for _, m := range p.Moves {
		out = append(out, m.Pod)
	}
	return out
}

// objects gathers test objects, in groups, as the API would list them.
func objects(groups ...[]any) cluster.Objects {
	var all []any
	for _, g := range groups {
		all = append(all, g...)
	}
	return ct.Objects(all...)
}

// build makes the snapshot of objects, taken at clustertest.Now.
func build(t *testing.T, objs cluster.Objects) *cluster.Snapshot {
	t.Helper()
	s, err := cluster.New(objs, ct.Now)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// afterPlan returns the snapshot of the cluster once the plan's evictions
// are done and the replacements run where the plan said they would.
func afterPlan(t *testing.T, objs cluster.Objects, p *planner.Plan) *cluster.Snapshot {
	t.Helper()
	var evictions []cluster.Eviction
	for _, m := range p.Moves {
		evictions = append(evictions, cluster.Eviction{Pod: m.Pod, From: m.From, To: m.To, Strategy: m.Strategy, At: ct.Now})
	}
	return build(t, ct.AfterEvictions(objs, evictions, ct.Now))
}
