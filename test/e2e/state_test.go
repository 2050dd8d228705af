package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// writeState creates the state ConfigMap with the given data, as an earlier
// run (or something else) left it.
func writeState(t *testing.T, cp *harness.ControlPlane, ns string, data map[string]string) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "rebalancer-state",
		Labels: map[string]string{cluster.ManagedByLabel: cluster.ManagedBy}}, Data: data}
	if _, err := cp.Client.CoreV1().ConfigMaps(ns).Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func readState(t *testing.T, cp *harness.ControlPlane, ns string) []cluster.Eviction {
	t.Helper()
	cm, err := cp.Client.CoreV1().ConfigMaps(ns).Get(t.Context(), "rebalancer-state", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := cluster.DecodeEvictions(cm)
	if err != nil {
		t.Fatalf("the state does not decode after the run: %v", err)
	}
	return evs
}

// A state ConfigMap that cannot be decoded is reported in a Warning event
// and replaced; the run goes on and evicts, and so do the runs after it.
func TestStateThatCannotBeReadIsReplaced(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, "corrupt", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	f.pile(harness.WorkloadSpec{Name: "web", Replicas: 6, CPU: "500m"}, f.nodes[0])
	writeState(t, cp, f.ns, map[string]string{"evictions.json": `[{"pod":"corrupt/web-`})
	pol := f.policy("limits: {total: 1}\n" + balancing)

	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", f.ns+"/rebalancer-state", "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit code %d, want 0", r.code)
	}
	if n := decode(t, r).Summary.Results[evictor.Evicted]; n != 1 {
		t.Errorf("evicted %d pods, want 1", n)
	}
	if evs := readState(t, cp, f.ns); len(evs) != 1 {
		t.Errorf("the replaced state holds %d evictions, want this run's 1", len(evs))
	}
	events, err := cp.Client.CoreV1().Events(f.ns).List(t.Context(), metav1.ListOptions{FieldSelector: "involvedObject.kind=ConfigMap,involvedObject.name=rebalancer-state"})
	if err != nil {
		t.Fatal(err)
	}
	if len(events.Items) != 1 || events.Items[0].Reason != kube.ReasonStateReplaced || events.Items[0].Type != corev1.EventTypeWarning ||
		!strings.Contains(events.Items[0].Message, "unexpected end of JSON input") {
		t.Errorf("events on the state ConfigMap = %+v, want one Warning %s saying what was wrong", events.Items, kube.ReasonStateReplaced)
	}
}

// An eviction an earlier run recorded and never made (it was killed between
// the two) is retracted by the next run: it causes no cooldown, and the
// scheduler no longer waits for its replacement. An eviction dated in the
// future is stored as made now.
func TestStateForgetsEvictionsThatNeverHappened(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, "undone", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	web := f.pile(harness.WorkloadSpec{Name: "web", Replicas: 4, CPU: "500m"}, f.nodes[0])
	f.pile(harness.WorkloadSpec{Name: "api", Replicas: 4, CPU: "500m"}, f.nodes[1])

	var stillThere corev1.Pod
	for _, p := range web {
		stillThere = p
		break
	}
	now := time.Now().UTC().Truncate(time.Second)
	recorded := []cluster.Eviction{
		{Pod: f.ns + "/" + stillThere.Name, UID: stillThere.UID, Workload: cluster.Workload{Kind: "Deployment", Namespace: f.ns, Name: "web"},
			From: f.nodes[0], To: f.nodes[2], Strategy: "LowNodeUtilization", At: now.Add(-time.Minute)},
		{Pod: f.ns + "/api-from-a-clock-ahead", UID: "4d7c0d5e-0000-4000-8000-000000000001", Workload: cluster.Workload{Kind: "Deployment", Namespace: f.ns, Name: "api"},
			From: f.nodes[1], Strategy: "LowNodeUtilization", At: now.Add(30 * 24 * time.Hour)},
	}
	body, _ := json.Marshal(recorded)
	writeState(t, cp, f.ns, map[string]string{"evictions.json": string(body)})
	pol := f.policy("limits: {total: 2}\n" + balancing)

	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", f.ns+"/rebalancer-state", "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit code %d, want 0", r.code)
	}
	rep := decode(t, r)
	for _, m := range rep.Moves {
		if strings.HasPrefix(m.Pod, f.ns+"/api-") {
			t.Errorf("moved %s: api is in its cooldown from the eviction dated ahead", m.Pod)
		}
	}
	if rep.Summary.Results[evictor.Evicted] == 0 {
		t.Errorf("nothing of web evicted: the eviction that never happened put it in cooldown; skipped %+v", rep.Skipped)
	}
	for _, e := range readState(t, cp, f.ns) {
		// This run may have evicted the pod for real: that is a new entry.
		if e.UID == stillThere.UID && e.At.Equal(recorded[0].At) {
			t.Errorf("the eviction of %s, which never happened, is still recorded", stillThere.Name)
		}
		if e.At.After(time.Now()) {
			t.Errorf("%s is still recorded at %s, in the future", e.Pod, e.At)
		}
	}
}

// A plan of 10,000 moves is recorded whole: the API server accepts the
// state (it stays well below its 1 MiB object limit) and it reads back.
func TestStateRecordsAPlanOf10000Moves(t *testing.T) {
	cp := sharedControlPlane(t)
	ns := "bigstate"
	if _, err := cp.CreateNamespace(t.Context(), ns); err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	now := time.Now().UTC()
	var plan []cluster.Eviction
	for i := range 10_000 {
		plan = append(plan, cluster.Eviction{
			Pod:      fmt.Sprintf("payments-production/checkout-api-%08x-%05x", rnd.Uint32(), rnd.IntN(1<<20)),
			UID:      types.UID(fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", rnd.Uint32(), rnd.IntN(1<<16), rnd.IntN(1<<12), rnd.IntN(1<<12), rnd.Uint64()>>16)),
			Workload: cluster.Workload{Kind: "Deployment", Namespace: "payments-production", Name: fmt.Sprintf("checkout-api-%d", i%300)},
			From:     fmt.Sprintf("ip-10-%d-%d-%d.eu-west-1.compute.internal", rnd.IntN(256), rnd.IntN(256), rnd.IntN(256)),
			To:       fmt.Sprintf("ip-10-%d-%d-%d.eu-west-1.compute.internal", rnd.IntN(256), rnd.IntN(256), rnd.IntN(256)),
			Strategy: "LowNodeUtilization", At: now,
		})
	}
	store := &kube.HistoryStore{Client: cp.Client, Namespace: ns, Name: "rebalancer-state", Keep: time.Hour}
	if err := store.Append(t.Context(), now, plan); err != nil {
		t.Fatalf("recording 10,000 moves: %v", err)
	}
	got, err := store.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(plan) {
		t.Errorf("read back %d evictions, want all %d", len(got), len(plan))
	}
}

// An eviction dated in 2099 (a clock ahead, a hand edit) holds its
// workload for one cooldown, not until 2099: the first run that reads it
// rewrites the state with the entry dated when it read it, although that
// run evicts nothing (the workload is in its cooldown), and a run after
// the cooldown moves the workload again.
func TestStateDatedAheadHoldsOneCooldown(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, "ahead", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	f.pile(harness.WorkloadSpec{Name: "web", Replicas: 6, CPU: "500m"}, f.nodes[0])
	future := time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
	body, _ := json.Marshal([]cluster.Eviction{{Pod: f.ns + "/web-evicted-long-ago", UID: "4d7c0d5e-0000-4000-8000-000000000002",
		Workload: cluster.Workload{Kind: "Deployment", Namespace: f.ns, Name: "web"}, From: f.nodes[0], Strategy: "LowNodeUtilization", At: future}})
	writeState(t, cp, f.ns, map[string]string{"evictions.json": string(body)})
	const cooldown = 5 * time.Second
	pol := f.policy(fmt.Sprintf("cooldown: %s\nlimits: {total: 1}\n", cooldown) + balancing)
	run := func() *result {
		r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", f.ns+"/rebalancer-state", "-o", "json")
		if r.code != 0 {
			t.Fatalf("exit code %d, want 0:\n%s", r.code, clip(r.stderr))
		}
		return r
	}

	before := time.Now()
	first := decode(t, run())
	if n := first.Summary.Results[evictor.Evicted]; n != 0 {
		t.Fatalf("the first run evicted %d pods; web is in its cooldown", n)
	}
	if first.Summary.Skipped["cooldown"] == 0 {
		t.Errorf("the first run skipped nothing for the cooldown: %+v", first.Summary.Skipped)
	}
	var healedAt time.Time
	for _, e := range readState(t, cp, f.ns) {
		if e.Pod == f.ns+"/web-evicted-long-ago" {
			healedAt = e.At
		}
	}
	if healedAt.IsZero() || healedAt.After(time.Now()) || healedAt.Before(before.Add(-time.Second)) {
		t.Fatalf("after a run that evicted nothing the entry is dated %s, want when the run read it (%s or later)", healedAt, before.Format(time.RFC3339))
	}

	time.Sleep(time.Until(healedAt.Add(cooldown + time.Second)))
	if n := decode(t, run()).Summary.Results[evictor.Evicted]; n != 1 {
		t.Errorf("a run after the cooldown evicted %d pods, want 1", n)
	}
}
