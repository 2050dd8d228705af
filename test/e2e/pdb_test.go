package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/planner"
	"github.com/kube-rebalancer/rebalancer/report"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// TestPDBForbiddenMoveIsNeverASuccess: a move a PodDisruptionBudget forbids
// never shows as a success, whether the planner sees the budget (CLI) or
// only the API server does (a hand-made plan through the evictor).
func TestPDBForbiddenMoveIsNeverASuccess(t *testing.T) {
	cp := sharedControlPlane(t)
	ctx := t.Context()
	f := newFixture(t, cp, "pdb", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})

	// pdb-0 is full: db (3 × 1 cpu, a PDB that allows no disruption) and web
	// (2 × 500m, no PDB). web shows the run does evict here; db must stay.
	db := harness.WorkloadSpec{Name: "db", Replicas: 3, CPU: "1"}
	web := harness.WorkloadSpec{Name: "web", Replicas: 2, CPU: "500m"}
	dbBefore := f.pile(db, f.nodes[0])
	f.pile(web, f.nodes[0])
	three := intstr.FromInt32(3)
	pdb, err := cp.CreatePDB(ctx, harness.PDBSpec{Namespace: f.ns, Name: "db", Selector: db.PodLabels(), MinAvailable: &three})
	if err != nil {
		t.Fatal(err)
	}
	if pdb.Status.DisruptionsAllowed != 0 || pdb.Status.CurrentHealthy != 3 {
		t.Fatalf("PDB db: %d disruptions allowed, %d healthy; want 0 of 3", pdb.Status.DisruptionsAllowed, pdb.Status.CurrentHealthy)
	}

	t.Run("cli", func(t *testing.T) {
		r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", f.policy(balancing), "--state-configmap", f.ns+"/rebalancer-state", "-o", "json")
		if r.code != 0 {
			t.Fatalf("run exited %d, want 0", r.code)
		}
		rep := decode(t, r)
		for _, m := range rep.Moves {
			if strings.HasPrefix(m.Pod, f.ns+"/db-") {
				t.Errorf("db pod %s is a move (%s, %s) although its PDB allows no disruption", m.Pod, m.Result, m.Message)
			}
		}
		if rep.Summary.Results[evictor.Evicted] == 0 {
			t.Errorf("nothing evicted; web, without a PDB, should move off the full %s", f.nodes[0])
		}
		skippedForPDB := map[string]bool{}
		for _, s := range rep.Skipped {
			if !strings.HasPrefix(s.Pod, f.ns+"/db-") {
				continue
			}
			if s.Category != planner.PDBBudget {
				t.Errorf("db pod %s skipped as %q (%s), want %q", s.Pod, s.Category, s.Reason, planner.PDBBudget)
				continue
			}
			if !strings.Contains(s.Reason, f.ns+"/db") {
				t.Errorf("skip of %s says %q; want it to name the PDB", s.Pod, s.Reason)
			}
			skippedForPDB[s.Pod] = true
		}
		if len(skippedForPDB) == 0 {
			t.Errorf("no db pod is skipped for its PDB; the full node should make them candidates")
		}
		if problems := unchanged(dbBefore, pods(t, cp, f.ns, db.Selector())); len(problems) > 0 {
			t.Errorf("db pods disturbed: %s", strings.Join(problems, "; "))
		}
	})

	t.Run("evictor", func(t *testing.T) {
		target := ""
		var move planner.Move
		for _, p := range pods(t, cp, f.ns, db.Selector()) {
			target = p.Name
			move = planner.Move{Pod: f.ns + "/" + p.Name, UID: p.UID, Workload: "Deployment " + f.ns + "/db",
				From: p.Spec.NodeName, To: f.nodes[1], Strategy: "HandMade", Reason: "a move only the API server can refuse"}
			break
		}
		plan := &planner.Plan{Moves: []planner.Move{move}}

		// What the API server itself answers for this pod, to compare with.
		apiErr := cp.Evict(ctx, f.ns, target)
		if !apierrors.IsTooManyRequests(apiErr) {
			t.Fatalf("direct eviction of %s: %v; want the PDB's 429", target, apiErr)
		}
		var status apierrors.APIStatus
		if !errors.As(apiErr, &status) {
			t.Fatalf("direct eviction of %s: %v is not an API status", target, apiErr)
		}

		events := evictor.NewEvents(cp.Client)
		ev := &evictor.Evictor{Client: cp.Client, Recorder: events}
		outcomes, err := ev.Execute(ctx, plan)
		if written, recorded := events.Flush(10 * time.Second); written != recorded {
			t.Errorf("%d of %d events written", written, recorded)
		}
		if err != nil {
			t.Fatalf("Execute: %v; a refusal is an outcome, not an error", err)
		}
		if len(outcomes) != 1 {
			t.Fatalf("%d outcomes for one move", len(outcomes))
		}
		o := outcomes[0]
		if o.Result != evictor.Refused {
			t.Errorf("outcome %s (%s), want %s", o.Result, o.Message, evictor.Refused)
		}
		if msg := status.Status().Message; msg == "" || !strings.Contains(o.Message, msg) {
			t.Errorf("outcome message %q; want the API server's %q", o.Message, msg)
		}
		if problems := unchanged(dbBefore, pods(t, cp, f.ns, db.Selector())); len(problems) > 0 {
			t.Errorf("db pods disturbed: %s", strings.Join(problems, "; "))
		}

		var buf bytes.Buffer
		if err := report.Print(&buf, report.FromOutcomes(plan, outcomes), report.JSON, false); err != nil {
			t.Fatal(err)
		}
		var printed struct {
			Moves []struct {
				Pod, Result, Message string
			}
			Summary struct {
				Results map[string]int
			}
		}
		if err := json.Unmarshal(buf.Bytes(), &printed); err != nil {
			t.Fatalf("report JSON: %v\n%s", err, buf.String())
		}
		if len(printed.Moves) != 1 || printed.Moves[0].Result != "refused" || printed.Moves[0].Message != o.Message ||
			printed.Summary.Results["refused"] != 1 || printed.Summary.Results["evicted"] != 0 {
			t.Errorf("report JSON does not show one refused move:\n%s", buf.String())
		}

		var refused int
		for _, e := range rebalancerEvents(t, cp, f.ns) {
			if e.InvolvedObject.UID != move.UID {
				continue
			}
			if e.Reason != evictor.ReasonRefused {
				t.Errorf("%s event on %s, which was not evicted: %s", e.Reason, target, e.Message)
			}
			refused++
		}
		if refused != 1 {
			t.Errorf("%d %s events on %s, want 1", refused, evictor.ReasonRefused, target)
		}
	})
}
