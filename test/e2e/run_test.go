package e2e

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/report"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// TestRunEvictsWithinLimits is one real cycle on an imbalanced cluster: the
// pods the report calls evicted are gone from the API, their Deployments
// are whole and Running again, perNode and total hold whether counted from
// the report or from the Events, each evicted pod has a Rebalanced event,
// and the state ConfigMap records exactly these evictions.
func TestRunEvictsWithinLimits(t *testing.T) {
	cp := sharedControlPlane(t)
	ctx := t.Context()
	f := newFixture(t, cp, "run", 4, harness.NodeSpec{CPU: "4", Memory: "16Gi"})

	// run-0 at 100% cpu and run-1 at 75%, run-2 and run-3 empty: without
	// limits the plan would take 6 pods off run-0 and 4 off run-1, so both
	// limits below bind, in one step: this fixture's pods are bound by the
	// test, not by a scheduler, so a second step would wait for
	// replacements nothing places (TestCrammedDeploymentIsBalancedInOneRun
	// runs steps).
	const perNode, total = 3, 3
	web := harness.WorkloadSpec{Name: "web", Replicas: 8, CPU: "500m"}
	api := harness.WorkloadSpec{Name: "api", Replicas: 6, CPU: "500m"}
	workloads := []harness.WorkloadSpec{web, api}
	before := map[string]corev1.Pod{} // by "namespace/name"
	for i, w := range workloads {
		for name, p := range f.pile(w, f.nodes[i]) {
			before[f.ns+"/"+name] = p
		}
	}
	pol := f.policy("limits: {perNode: 3, total: 3}\n" + balancing)
	state := f.ns + "/rebalancer-state"

	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", state, "-o", "json")
	if r.code != 0 {
		t.Fatalf("run exited %d, want 0", r.code)
	}
	rep := decode(t, r)
	if rep.DryRun {
		t.Errorf("a real run reports dryRun=true")
	}
	var evicted []report.Move
	for _, m := range rep.Moves {
		if m.Result != evictor.Evicted {
			t.Errorf("move of %s: %s (%s); every planned move should succeed here", m.Pod, m.Result, m.Message)
			continue
		}
		evicted = append(evicted, m)
	}
	if len(evicted) == 0 {
		t.Fatalf("nothing evicted")
	}
	if rep.Summary.Results[evictor.Evicted] != len(evicted) {
		t.Errorf("summary counts %d evicted, the moves %d", rep.Summary.Results[evictor.Evicted], len(evicted))
	}
	if !strings.Contains(rep.Stopped, "limits.total reached") {
		t.Errorf("the plan was not stopped by limits.total (stopped: %q); the fixture is built so that the limits bind", rep.Stopped)
	}
	checkLimits(t, "the report", countBy(evicted, func(m report.Move) string { return m.From }), perNode, total)

	// The report's "from" is where the pod really was, and its UID the one
	// the API knew.
	evictedUIDs := map[types.UID]report.Move{}
	for _, m := range evicted {
		p, ok := before[m.Pod]
		if !ok || p.Spec.NodeName != m.From || p.UID != m.UID {
			t.Errorf("move %s from %s (uid %s) names no pod of the fixture on that node", m.Pod, m.From, m.UID)
		}
		evictedUIDs[m.UID] = m
	}

	// Evictions go through the API: the pods are gone, not just reported.
	for _, w := range workloads {
		for name, p := range pods(t, cp, f.ns, w.Selector()) {
			if m, ok := evictedUIDs[p.UID]; ok {
				t.Errorf("evicted pod %s (uid %s) still exists (deleting: %v)", name, m.UID, p.DeletionTimestamp != nil)
			}
		}
	}

	// Each evicted pod carries a Rebalanced event; none other does.
	events := map[types.UID][]corev1.Event{}
	for _, e := range rebalancerEvents(t, cp, f.ns) {
		if e.Reason != evictor.ReasonRebalanced {
			t.Errorf("unexpected %s event on %s: %s", e.Reason, e.InvolvedObject.Name, e.Message)
			continue
		}
		events[e.InvolvedObject.UID] = append(events[e.InvolvedObject.UID], e)
	}
	eventFrom := map[string]int{}
	for uid, evs := range events {
		m, ok := evictedUIDs[uid]
		if !ok {
			t.Errorf("Rebalanced event on %s (uid %s), which the report does not list as evicted", evs[0].InvolvedObject.Name, uid)
			continue
		}
		if len(evs) != 1 || evs[0].Count > 1 {
			t.Errorf("%d Rebalanced events (count %d) on %s, want one", len(evs), evs[0].Count, m.Pod)
		}
		if !strings.Contains(evs[0].Message, "replacement planned on "+m.To) {
			t.Errorf("event on %s says %q; want it to name the planned node %s", m.Pod, evs[0].Message, m.To)
		}
		eventFrom[before[m.Pod].Spec.NodeName]++
	}
	for uid, m := range evictedUIDs {
		if len(events[uid]) == 0 {
			t.Errorf("no Rebalanced event on evicted pod %s", m.Pod)
		}
	}
	checkLimits(t, "the events", eventFrom, perNode, total)

	// The state ConfigMap records the evictions for the next cycles and the
	// scheduler.
	cm, err := cp.Client.CoreV1().ConfigMaps(f.ns).Get(ctx, "rebalancer-state", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("state ConfigMap %s: %v", state, err)
	}
	var recorded []cluster.Eviction
	if err := json.Unmarshal([]byte(cm.Data["evictions.json"]), &recorded); err != nil {
		t.Fatalf("state ConfigMap %s, key evictions.json: %v\n%v", state, err, cm.Data)
	}
	var got, want []string
	for _, e := range recorded {
		got = append(got, e.Pod+" "+e.From+"→"+e.To+" "+e.Workload.String()+" "+e.Strategy)
		if e.At.IsZero() {
			t.Errorf("state records %s without a time", e.Pod)
		}
	}
	for _, m := range evicted {
		want = append(want, m.Pod+" "+m.From+"→"+m.To+" "+m.Workload+" "+m.Strategy)
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("state ConfigMap records\n  %s\nwant the evictions of the report\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}

	// Beside them, the record of the run, for whoever did not watch its log.
	var last report.RunRecord
	if err := json.Unmarshal([]byte(cm.Data[kube.RunRecordKey]), &last); err != nil {
		t.Fatalf("state ConfigMap %s, key %s: %v\n%v", state, kube.RunRecordKey, err, cm.Data)
	}
	if !last.Succeeded || last.DryRun || last.Moves != len(rep.Moves) || last.Results[evictor.Evicted] != len(evicted) ||
		last.LastSuccess == nil || !last.LastSuccess.Equal(last.End) || last.End.Before(last.Start) {
		t.Errorf("last-run record = %+v, want a successful run of %d moves, %d evicted", last, len(rep.Moves), len(evicted))
	}

	// The ReplicaSet controller replaces the evicted pods; the test binds
	// the replacements where the plan put them, standing in for a
	// scheduler, and each Deployment is whole and Running again.
	for _, w := range workloads {
		var to []string
		for _, m := range evicted {
			if m.Workload == "Deployment "+f.ns+"/"+w.Name {
				to = append(to, m.To)
			}
		}
		if len(to) > 0 {
			sort.Strings(to)
			if _, err := cp.BindPendingPods(ctx, f.ns, w.Selector(), len(to), to); err != nil {
				t.Fatalf("replacements of %s: %v", w.Name, err)
			}
		}
		running, err := cp.WaitForPodsRunning(ctx, f.ns, w.Selector(), int(w.Replicas))
		if err != nil {
			t.Fatalf("%s after the run: %v", w.Name, err)
		}
		for _, p := range running {
			if _, ok := evictedUIDs[p.UID]; ok {
				t.Errorf("evicted pod %s is Running again", p.Name)
			}
		}
	}
}

// checkLimits fails if evictions counted per node break perNode or, in all,
// total.
func checkLimits(t *testing.T, source string, perNodeCounts map[string]int, perNode, total int) {
	t.Helper()
	sum := 0
	for node, n := range perNodeCounts {
		sum += n
		if n > perNode {
			t.Errorf("%s: %d evictions from %s, above limits.perNode %d", source, n, node, perNode)
		}
	}
	if sum > total {
		t.Errorf("%s: %d evictions, above limits.total %d", source, sum, total)
	}
	t.Logf("%s: %d evictions, per node %v", source, sum, perNodeCounts)
}
