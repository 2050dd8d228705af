// Package strategytest holds what the tests of the built-in strategies
// share: loading a policy with every built-in strategy registered, and
// planning on a snapshot with the real scheduler engine.
package strategytest

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/planner"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"

	// Registers the built-in strategies, which the policies configure.
	_ "github.com/kube-rebalancer/rebalancer/strategies"
)

// Header is the start of a policy file, before its settings.
const Header = "apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\n"

// Load loads a policy given as YAML after the header.
func Load(t *testing.T, policyYAML string) *policy.Policy {
	t.Helper()
	p, err := policy.Load([]byte(Header+policyYAML), "policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Plan runs the planner, with the real scheduler engine, on a snapshot
// under a policy given as YAML after the header.
func Plan(t *testing.T, snap *cluster.Snapshot, policyYAML string) *planner.Plan {
	t.Helper()
	return PlanAfter(t, snap, policyYAML, nil)
}

// PlanAfter is Plan for a run that follows one whose plan counted the
// earlier observations (planner.Plan.Observations).
func PlanAfter(t *testing.T, snap *cluster.Snapshot, policyYAML string, earlier []cluster.Observation) *planner.Plan {
	t.Helper()
	pol, err := policy.Load([]byte("apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\ncooldown: 0s\n"+policyYAML), "policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(profile.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	return (&planner.Planner{Policy: pol, Placer: e, Observations: earlier}).Plan(snap)
}

// Moves lists "pod from→to", sorted, so that a test states exactly what
// Moves and nothing else.
func Moves(p *planner.Plan) []string {
	out := []string{}
	for _, m := range p.Moves {
		out = append(out, fmt.Sprintf("%s %s→%s", m.Pod, m.From, m.To))
	}
	sort.Strings(out)
	return out
}

// MovedFrom lists the moved pods and where they came from, sorted, for
// tests where the target is a detail of the scheduler's scoring.
func MovedFrom(p *planner.Plan) []string {
	out := []string{}
	for _, m := range p.Moves {
		out = append(out, m.Pod+" "+m.From)
	}
	sort.Strings(out)
	return out
}

// Equal is a test helper.
func Equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n  %s\nwant:\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// MovedTo lists the targets of the moves, sorted.
func MovedTo(p *planner.Plan) []string {
	out := []string{}
	for _, m := range p.Moves {
		out = append(out, m.To)
	}
	sort.Strings(out)
	return out
}

// Order lists the moved pods in the order the plan moves them.
func Order(p *planner.Plan) []string {
	out := []string{}
	for _, m := range p.Moves {
		out = append(out, m.Pod)
	}
	return out
}

// Objects gathers test objects, in groups, as the API would list them.
func Objects(groups ...[]any) cluster.Objects {
	var all []any
	for _, g := range groups {
		all = append(all, g...)
	}
	return ct.Objects(all...)
}

// Build makes the snapshot of objects, taken at clustertest.Now.
func Build(t *testing.T, objs cluster.Objects) *cluster.Snapshot {
	t.Helper()
	s, err := cluster.New(objs, ct.Now)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// AfterPlan returns the snapshot of the cluster once the plan's evictions
// are done and the replacements run where the plan said they would.
func AfterPlan(t *testing.T, objs cluster.Objects, p *planner.Plan) *cluster.Snapshot {
	t.Helper()
	var evictions []cluster.Eviction
	for _, m := range p.Moves {
		evictions = append(evictions, cluster.Eviction{Pod: m.Pod, From: m.From, To: m.To, Strategy: m.Strategy, At: ct.Now})
	}
	return Build(t, ct.AfterEvictions(objs, evictions, ct.Now))
}

// Snapshot is a test helper.
func Snapshot(t *testing.T, groups ...[]any) *cluster.Snapshot {
	var all []any
	for _, g := range groups {
		all = append(all, g...)
	}
	return ct.Snapshot(t, all...)
}

// CPUPods returns pods of Deployment app on a node, each requesting one of
// the CPU amounts.
func CPUPods(node, app string, cpus ...string) []any {
	out := []any{ct.DeploymentReplicaSet("shop", app)}
	for i, cpu := range cpus {
		out = append(out, ct.Pod("shop", fmt.Sprintf("%s-%s-%d", app, node, i)).On(node).Requests(cpu, "").Deployment(app))
	}
	return out
}

// Pods returns n pods of Deployment app on a node, each requesting cpu.
func Pods(node, app string, n int, cpu string) []any {
	out := []any{ct.DeploymentReplicaSet("shop", app)}
	for i := range n {
		out = append(out, ct.Pod("shop", fmt.Sprintf("%s-%s-%d", app, node, i)).On(node).Requests(cpu, "").Deployment(app))
	}
	return out
}

// Tolerating returns n pods of Deployment app on a node, each requesting
// 400m cpu and tolerating the NoExecute taint maintenance, for the seconds
// given (nil: for good).
func Tolerating(node, app string, n int, seconds *int64) []any {
	out := []any{ct.DeploymentReplicaSet("shop", app)}
	for i := range n {
		out = append(out, ct.Pod("shop", fmt.Sprintf("%s-%s-%d", app, node, i)).On(node).Requests("400m", "").Deployment(app).
			Toleration(corev1.Toleration{Key: "maintenance", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: seconds}))
	}
	return out
}

// Web is a test helper.
func Web(name string) *ct.PodBuilder {
	return ct.Pod("shop", name).On("n1").Requests("100m", "").Deployment("web")
}

// ZonePods returns the pods of Deployment web, n per node, named in order.
func ZonePods(perNode map[string]int, nodes []string, edit func(*ct.PodBuilder) *ct.PodBuilder) []any {
	out := []any{ct.DeploymentReplicaSet("shop", "web")}
	i := 0
	for _, node := range nodes {
		for range perNode[node] {
			out = append(out, edit(ct.Pod("shop", fmt.Sprintf("web-%d", i)).On(node).Requests("100m", "").Deployment("web")))
			i++
		}
	}
	return out
}

// SpreadOn is a test helper.
func SpreadOn(key string, maxSkew int32, when corev1.UnsatisfiableConstraintAction) func(*ct.PodBuilder) *ct.PodBuilder {
	return func(b *ct.PodBuilder) *ct.PodBuilder {
		return b.Spread(key, maxSkew, when, map[string]string{"app": "web"})
	}
}
