package planner

import (
	"fmt"
	"strings"
	"testing"
	"time"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

func notesOf(p *Plan) string {
	var out []string
	for _, n := range p.Notes {
		s := n.Strategy
		if s == "" {
			s = "-"
		}
		if n.Node != "" {
			s += " " + n.Node
		}
		out = append(out, s+": "+n.Text)
	}
	return strings.Join(out, "\n")
}

// A strategy that found pods to move and moved none of them says so, with
// what kept them, so that a plan of no moves does not read as a cluster
// with nothing to do.
func TestNoteOfAStrategyThatMovedNothing(t *testing.T) {
	const lifetime = "strategies:\n  PodLifeTime: {maxPodLifeTimeSeconds: 3600}\n"
	old := func(name, node, app, cpu string) *ct.PodBuilder {
		return ct.Pod("shop", name).On(node).Requests(cpu, "64Mi").Deployment(app).CreatedAgo(2 * time.Hour)
	}
	// n2 is full of a pod younger than maxPodLifeTimeSeconds.
	full := ct.Pod("shop", "db-0").On("n2").Requests("4", "64Mi").Deployment("db").CreatedAgo(time.Minute)
	base := []any{ct.Node("n1"), ct.Node("n2"), full, ct.DeploymentReplicaSet("shop", "web"),
		ct.DeploymentReplicaSet("shop", "api"), ct.DeploymentReplicaSet("shop", "db"), ct.PDB("shop", "api", 0)}
	tests := []struct {
		name  string
		objs  []any
		moved string
		notes string
	}{
		{
			name:  "every pod it found was skipped: the note counts them by category",
			objs:  []any{old("web-0", "n1", "web", "1"), old("web-1", "n1", "web", "1"), old("api-0", "n1", "api", "100m")},
			notes: "PodLifeTime: found 3 pods to move, moved none: 2 no-fit, 1 pdb",
		},
		{
			name:  "one pod",
			objs:  []any{old("web-0", "n1", "web", "1")},
			notes: "PodLifeTime: found 1 pod to move, moved none: 1 no-fit",
		},
		{
			name:  "some moved: the skipped pods are in the plan, and no note",
			objs:  []any{ct.Node("n3"), old("web-0", "n1", "web", "1"), old("api-0", "n1", "api", "100m")},
			moved: "shop/web-0",
		},
		{
			name: "nothing found: no note",
			objs: []any{ct.Pod("shop", "web-0").On("n1").Requests("1", "64Mi").Deployment("web").CreatedAgo(time.Minute)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := &Planner{Policy: loadPolicy(t, lifetime), Placer: newEngine(t)}
			p := pl.Plan(ct.Snapshot(t, append(base, tt.objs...)...))
			if got := movedPods(p); got != tt.moved {
				t.Errorf("moves = %q, want %q", got, tt.moved)
			}
			if got := notesOf(p); got != tt.notes {
				t.Errorf("notes:\n%s\nwant:\n%s", got, tt.notes)
			}
		})
	}
}

// The note's counts are structured for -o json.
func TestNoteOfAStrategyThatMovedNothingCounts(t *testing.T) {
	pl := &Planner{Policy: loadPolicy(t, "strategies:\n  PodLifeTime: {maxPodLifeTimeSeconds: 3600}\n"), Placer: newEngine(t)}
	p := pl.Plan(ct.Snapshot(t, ct.Node("n1"), ct.DeploymentReplicaSet("shop", "api"), ct.PDB("shop", "api", 0),
		ct.Pod("shop", "api-0").On("n1").Deployment("api").CreatedAgo(2*time.Hour)))
	if len(p.Notes) != 1 || fmt.Sprint(p.Notes[0].Skipped) != "map[pdb:1]" {
		t.Errorf("notes = %+v, want one counting 1 pdb", p.Notes)
	}
}

// Pods that wait for a node are counted, so that a user whose pod waits
// for ever sees that the run looked at it: those the scheduler found no
// node for (PodScheduled False, reason Unschedulable), by namespace when
// they are in few; gated pods apart, as the scheduler has not tried them.
func TestPendingPodsNote(t *testing.T) {
	waiting := func(ns, name string) *ct.PodBuilder {
		return ct.Pod(ns, name).Requests("8", "64Mi").Deployment("web").Unschedulable()
	}
	many := []any{}
	for i := range 6 {
		many = append(many, waiting(fmt.Sprintf("team-%d", i), "web-0"))
	}
	tests := []struct {
		name   string
		policy string
		objs   []any
		notes  string
	}{
		{
			name:  "none pending: no note",
			objs:  []any{ct.Pod("shop", "web-0").On("n1").Deployment("web")},
			notes: "",
		},
		{
			name: "unschedulable pods, by namespace",
			objs: []any{waiting("shop", "web-0"), waiting("shop", "web-1"), waiting("blog", "web-0")},
			notes: "-: 3 pods pending as unschedulable (blog: 1, shop: 2); " +
				"no strategy of this policy places pending pods",
		},
		{
			name:  "in many namespaces: the total",
			objs:  many,
			notes: "-: 6 pods pending as unschedulable in 6 namespaces; no strategy of this policy places pending pods",
		},
		{
			name: "gated pods are not unschedulable: the scheduler has not tried them",
			objs: []any{waiting("shop", "web-0"), ct.Pod("shop", "web-1").Deployment("web").SchedulingGated("example.com/quota")},
			notes: "-: 1 pod pending as unschedulable (shop: 1); no strategy of this policy places pending pods; " +
				"1 pod gated by spec.schedulingGates, which the scheduler does not try until they are removed",
		},
		{
			name: "a pending pod the scheduler has not tried yet, a terminating one and one of a namespace the policy leaves alone are not counted",
			objs: []any{ct.Pod("shop", "web-0").Deployment("web").Pending(), waiting("shop", "web-1").Terminating(),
				waiting("kube-system", "dns-0")},
			policy: "namespaces: {exclude: [kube-system]}\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := &Planner{Policy: loadPolicy(t, tt.policy+"strategies:\n  RemoveDuplicates: {}\n"), Placer: newEngine(t)}
			p := pl.Plan(ct.Snapshot(t, append([]any{ct.Node("n1"), ct.DeploymentReplicaSet("shop", "web")}, tt.objs...)...))
			if got := notesOf(p); got != tt.notes {
				t.Errorf("notes:\n%s\nwant:\n%s", got, tt.notes)
			}
		})
	}
}
