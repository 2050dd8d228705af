package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// TestSchedulerPlacesReplacementsWherePlanned is the point of the product:
// with `rebalancer schedule` running, the replacements of the pods a run
// evicts are bound to exactly the nodes the plan named (as a multiset: the
// ReplicaSet's new pods are interchangeable), through the hand-off the run
// records in the state ConfigMap, none back on the node it left and none
// left Pending.
//
// In "plain", kube-scheduler's default scoring alone would pick the same
// empty nodes as the plan, so only the scheduler's events tell whether the
// hand-off placed the pods. In "prefers-crowded-node" the pods softly
// prefer the node they are evicted from (a preferred pool, say): the plan
// never targets the node a pod leaves, and a scheduler without the hand-off
// would put them straight back.
func TestSchedulerPlacesReplacementsWherePlanned(t *testing.T) {
	cp := sharedControlPlane(t)
	for _, tc := range []struct {
		name, fixture string
		preferCrowded bool
	}{
		{"plain", "handoff-a", false},
		{"prefers-crowded-node", "handoff-b", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, cp, tc.fixture, 4, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
			// The pods opt into rebalancer's scheduler. Their nodeSelector
			// keeps them on the fixture's nodes: the scheduler sees every
			// node of the shared cluster, the policy only these.
			web := harness.WorkloadSpec{Name: "web", Replicas: 6, CPU: "500m", SchedulerName: "rebalancer",
				NodeSelector: map[string]string{harness.NodeSetLabel: f.ns}}
			if tc.preferCrowded {
				web.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
					PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
						Weight: 100,
						Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{
							Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{f.nodes[0]},
						}}},
					}},
				}}
			}
			handoff(t, cp, f, web)
		})
	}
}

func handoff(t *testing.T, cp *harness.ControlPlane, f *fixture, web harness.WorkloadSpec) {
	ctx := t.Context()
	// Bound by the test before the scheduler starts: 75% cpu and six
	// replicas on one node of four.
	before := f.pile(web, f.nodes[0])
	state := f.ns + "/rebalancer-state"

	sched := startRebalancer(t, "schedule", "--kubeconfig", cp.Kubeconfig, "--state-configmap", state)
	err := harness.WaitFor(ctx, time.Minute, "the scheduler to start", func(context.Context) (bool, error) {
		if err := sched.exited(); err != nil {
			return false, err
		}
		return strings.Contains(sched.stderr.String(), `"Scheduler started"`), nil
	})
	if err != nil {
		t.Fatal(err)
	}

	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", f.policy(balancing), "--state-configmap", state, "-o", "json")
	if r.code != 0 {
		t.Fatalf("run exited %d, want 0", r.code)
	}
	rep := decode(t, r)
	var planned []string
	for _, m := range rep.Moves {
		if m.Result != evictor.Evicted {
			t.Errorf("move of %s: %s (%s)", m.Pod, m.Result, m.Message)
			continue
		}
		if m.From != f.nodes[0] || m.To == "" || m.To == m.From {
			t.Errorf("move of %s from %s to %q; want from %s to another node", m.Pod, m.From, m.To, f.nodes[0])
		}
		planned = append(planned, m.To)
	}
	if len(planned) == 0 {
		t.Fatalf("nothing evicted; the test needs replacements to place")
	}
	sort.Strings(planned)

	var placed []string
	var last string
	err = harness.WaitFor(ctx, 2*time.Minute, fmt.Sprintf("%d replacements bound and Running", len(planned)), func(ctx context.Context) (bool, error) {
		if err := sched.exited(); err != nil {
			return false, err
		}
		now := pods(t, cp, f.ns, web.Selector())
		placed = placed[:0]
		running, pending := 0, 0
		for name, p := range now {
			if harness.PodRunning(&p) {
				running++
			} else {
				pending++
			}
			if _, old := before[name]; !old && p.DeletionTimestamp == nil && p.Spec.NodeName != "" {
				placed = append(placed, p.Spec.NodeName)
			}
		}
		last = fmt.Sprintf("%d Running, %d not, replacements on %v", running, pending, placed)
		return running == int(web.Replicas) && pending == 0 && len(placed) == len(planned), nil
	})
	if err != nil {
		t.Fatalf("%v (last: %s)", err, last)
	}
	sort.Strings(placed)
	if strings.Join(placed, " ") != strings.Join(planned, " ") {
		t.Errorf("replacements bound to %v; the plan named %v", placed, planned)
	}
	for _, n := range placed {
		if n == f.nodes[0] {
			t.Errorf("a replacement went back to %s, the node its workload was evicted from", n)
		}
	}

	// Matching nodes could be a coincidence of two equal engines; the
	// scheduler's own account says whether the hand-off placed them.
	events := rebalancerEvents(t, cp, f.ns)
	for name, p := range pods(t, cp, f.ns, web.Selector()) {
		if _, old := before[name]; old {
			continue
		}
		var how []string
		for _, e := range events {
			if e.InvolvedObject.UID == p.UID && e.Reason == "Scheduled" {
				how = append(how, e.Message)
			}
		}
		if len(how) != 1 || !strings.Contains(how[0], "planned by rebalancer") {
			t.Errorf("replacement %s on %s: Scheduled events %q; want one saying the plan placed it", name, p.Spec.NodeName, how)
		}
	}

	if code := sched.stop(t); code != 0 {
		t.Errorf("the scheduler exited %d on SIGTERM", code)
	}
}
