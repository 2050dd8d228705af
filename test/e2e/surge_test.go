package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/planner"
	"github.com/kube-rebalancer/rebalancer/report"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// surgeTaint is the NoSchedule taint the surge tests put on the node their
// workload must leave; only the fixture's policy names it.
const surgeTaint = "rebalancer.dev/e2e-surge"

// lowestCost is the pod-deletion-cost a surge gives the pod its ReplicaSet
// is to remove.
var lowestCost = strconv.Itoa(math.MinInt32)

// TestSurgeMovesASingleReplica: a Deployment of one replica whose
// PodDisruptionBudget (minAvailable: 1) forbids every eviction sits on a
// node that gains a taint it does not tolerate. With makeBeforeBreak its
// strategy moves it by surge: the new pod, steered by `rebalancer
// schedule` to the planned node, is Ready before the old one goes, so
// the Deployment never has no Ready replica.
func TestSurgeMovesASingleReplica(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, "surge-one", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	web := f.surgeWorkload("web", 1, "rebalancer")
	before := f.deployOn(web, f.nodes[0])
	f.pdb(web, "minAvailable", 1)
	f.taint(f.nodes[0])
	d0 := f.deployment(web.Name)
	state := f.ns + "/rebalancer-state"
	sched := f.scheduler(state)

	ready := f.watchReady(web.Name)
	pol := f.policy(`strategies:
  RemovePodsViolatingNodeTaints:
    includedTaints: [` + surgeTaint + `]
    evictable: {makeBeforeBreak: true}
`)
	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", state, "--step-timeout", "60s", "-o", "json")
	running, runErr := cp.WaitForPodsRunning(t.Context(), f.ns, web.Selector(), 1)
	low, seen := ready.stop()
	if r.code != 0 {
		t.Fatalf("run exited %d, want 0", r.code)
	}
	if runErr != nil {
		t.Fatal(runErr)
	}
	m := onlySurge(t, decode(t, r), f.nodes[0])
	t.Logf("%s from %s to %s: %s (%s); readyReplicas %v", m.Pod, m.From, m.To, m.Result, m.Message, seen)
	if m.Result != evictor.Surged {
		t.Fatalf("move of %s: %s (%s), want %s", m.Pod, m.Result, m.Message, evictor.Surged)
	}
	p := running[0]
	if _, old := before[p.Name]; old || p.Spec.NodeName != m.To {
		t.Errorf("the Deployment's pod is %s on %s; want a new pod on %s, the move's to", p.Name, p.Spec.NodeName, m.To)
	}
	if low < 1 {
		t.Errorf("status.readyReplicas of the Deployment went down to %d during the run (%v); want 1 throughout", low, seen)
	}
	f.expectEvent(m, corev1.EventTypeNormal, evictor.ReasonRebalanced, "by surge")
	f.expectDeclared(d0, 1)
	f.expectSteered(sched, before, web)
	f.expectNoSurgeLeft()
}

// TestSurgeSpreadsAFullyProtectedDeployment: three replicas on one node,
// a PodDisruptionBudget of maxUnavailable: 0. RemoveDuplicates spreads
// them in one run, two surges one after the other, and the Deployment
// never has fewer than three Ready replicas.
func TestSurgeSpreadsAFullyProtectedDeployment(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, "surge-spread", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	web := f.surgeWorkload("web", 3, "rebalancer")
	before := f.deployOn(web, f.nodes[0])
	f.pdb(web, "maxUnavailable", 0)
	d0 := f.deployment(web.Name)
	state := f.ns + "/rebalancer-state"
	sched := f.scheduler(state)

	ready := f.watchReady(web.Name)
	pol := f.policy("evictable: {makeBeforeBreak: true}\nstrategies:\n  RemoveDuplicates: {}\n")
	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", state, "--step-timeout", "60s", "-o", "json")
	running, runErr := cp.WaitForPodsRunning(t.Context(), f.ns, web.Selector(), 3)
	low, seen := ready.stop()
	if r.code != 0 {
		t.Fatalf("run exited %d, want 0", r.code)
	}
	if runErr != nil {
		t.Fatal(runErr)
	}
	rep := decode(t, r)
	if len(rep.Moves) != 2 {
		t.Errorf("%d moves, want 2 (one of the three pods stays)", len(rep.Moves))
	}
	for _, m := range rep.Moves {
		t.Logf("%s from %s to %s: %s (%s)", m.Pod, m.From, m.To, m.Result, m.Message)
		if !m.Surge || m.Result != evictor.Surged || m.From != f.nodes[0] {
			t.Errorf("move of %s from %s to %s: surge %v, %s (%s); want a surge off %s, surged", m.Pod, m.From, m.To, m.Surge, m.Result, m.Message, f.nodes[0])
		}
	}
	on := countBy(running, func(p corev1.Pod) string { return p.Spec.NodeName })
	for node, n := range on {
		if n > 1 {
			t.Errorf("%d pods on %s after the run (%v); want one on each node", n, node, on)
		}
	}
	for _, m := range rep.Moves {
		f.expectEvent(m, corev1.EventTypeNormal, evictor.ReasonRebalanced, "by surge")
	}
	t.Logf("readyReplicas %v", seen)
	if low < 3 {
		t.Errorf("status.readyReplicas of the Deployment went down to %d during the run (%v); want 3 throughout", low, seen)
	}
	f.expectDeclared(d0, 3)
	f.expectSteered(sched, before, web)
	f.expectNoSurgeLeft()
}

// TestSurgeKilledRunIsEndedByTheNext: a run killed with SIGKILL while its
// surge waits for the new pod leaves the Deployment one replica up and the
// surge recorded. The next run, which has nothing else to do, ends it
// before it reads the cluster: the Deployment as declared, its old pods
// untouched, the extra pod gone.
func TestSurgeKilledRunIsEndedByTheNext(t *testing.T) {
	cp := sharedControlPlane(t)
	ctx := t.Context()
	f := newFixture(t, cp, "surge-killed", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	// No scheduler serves the pods: the surge's new pod stays Pending, so
	// the run waits for it for as long as --step-timeout allows.
	web := f.surgeWorkload("web", 2, manualScheduler)
	before := f.deployOn(web, f.nodes[0])
	f.pdb(web, "minAvailable", 2)
	f.taint(f.nodes[0])
	d0 := f.deployment(web.Name)
	state := f.ns + "/rebalancer-state"
	// A lease of the test's own: the killed run leaves it held until it
	// expires, which must not keep other tests' runs from working.
	lease := f.ns + "/rebalancer-run-lock"

	pol := f.policy("evictable: {makeBeforeBreak: true}\nstrategies:\n  RemovePodsViolatingNodeTaints: {includedTaints: [" + surgeTaint + "]}\n")
	killed := startRebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", state, "--run-lease", lease, "--step-timeout", "5m", "-o", "json")
	var extra string
	err := harness.WaitFor(ctx, time.Minute, "the surge's extra pod", func(context.Context) (bool, error) {
		if err := killed.exited(); err != nil {
			return false, err
		}
		for name := range pods(t, cp, f.ns, web.Selector()) {
			if _, old := before[name]; !old {
				extra = name
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// By PID: the run this test started.
	if err := killed.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-killed.done
	if d := f.deployment(web.Name); *d.Spec.Replicas != 3 {
		t.Fatalf("after the kill the Deployment has spec.replicas %d; want 3, the surge under way", *d.Spec.Replicas)
	}
	if s := f.surges(); len(s) != 1 || s[0].Deployment != f.ns+"/web" {
		t.Fatalf("after the kill the state records the surges %+v; want the one under way", s)
	}
	t.Logf("killed the run with %s, the surge's pod, Pending", extra)

	// The next run of the same setup finds the Lease held until it
	// expires, as a CronJob's next run would.
	f.waitLeaseExpired(lease)
	plain := f.policy("strategies:\n  RemovePodsViolatingNodeTaints: {includedTaints: [" + surgeTaint + "]}\n")
	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", plain, "--state-configmap", state, "--run-lease", lease, "-o", "json")
	if r.code != 0 {
		t.Fatalf("next run exited %d, want 0", r.code)
	}
	ended := ""
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.Contains(l, "Ended a surge an earlier run left under way") {
			ended = l
		}
	}
	if ended == "" {
		t.Errorf("the next run does not say it ended the surge left under way")
	}
	t.Logf("next run: %s", ended)
	// The killed run's intent would steer the workload's next new pod to
	// where the surge was going.
	for _, e := range readState(t, cp, f.ns) {
		if e.Surge {
			t.Errorf("the state still holds the killed surge's intent %+v", e)
		}
	}
	if rep := decode(t, r); len(rep.Moves) != 0 {
		t.Errorf("the next run made %d moves; want none (makeBeforeBreak is off)", len(rep.Moves))
	}
	if _, err := cp.WaitForPodsRunning(ctx, f.ns, web.Selector(), 2); err != nil {
		t.Fatal(err)
	}
	after := pods(t, cp, f.ns, web.Selector())
	if problems := unchanged(before, after); len(problems) > 0 || len(after) != 2 {
		t.Errorf("pods after the next run: %v; want the two old ones untouched (%s)", slices.Sorted(maps.Keys(after)), strings.Join(problems, "; "))
	}
	for name, p := range after {
		if !maps.Equal(p.Annotations, before[name].Annotations) {
			t.Errorf("%s has the annotations %v, had %v", name, p.Annotations, before[name].Annotations)
		}
	}
	f.expectDeclared(d0, 2)
	f.expectNoSurgeLeft()
}

// TestSurgeRolledBackWhenTheNewPodNeverReady: a surge whose new pod is not
// Ready within --step-timeout is undone: the old pod stays as it was,
// spec.replicas goes back, and the move says why.
//
// kwok's pod-ready stage sets every spec.readinessGates condition True
// along with Ready, so a readiness gate holds no pod back. What does:
// "node-without-kubelet", a node kwok does not manage (no
// kwok.x-k8s.io/node annotation), whose status and Lease the test keeps
// Ready: the new pod is steered there and bound, and nothing ever runs
// it; "never-bound", a new pod no scheduler binds.
func TestSurgeRolledBackWhenTheNewPodNeverReady(t *testing.T) {
	cp := sharedControlPlane(t)
	for _, tc := range []struct {
		name, fixture string
		dark          bool
	}{
		{"node-without-kubelet", "surge-dark", true},
		{"never-bound", "surge-unbound", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			kwokNodes := 3
			scheduler := manualScheduler
			if tc.dark {
				// The dark node is the only one the pod may go to.
				kwokNodes, scheduler = 1, "rebalancer"
			}
			f := newFixture(t, cp, tc.fixture, kwokNodes, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
			web := f.surgeWorkload("web", 1, scheduler)
			before := f.deployOn(web, f.nodes[0])
			f.pdb(web, "minAvailable", 1)
			f.taint(f.nodes[0])
			d0 := f.deployment(web.Name)
			state := f.ns + "/rebalancer-state"
			dark := ""
			if tc.dark {
				dark = f.darkNode()
				f.scheduler(state)
			}

			pol := f.policy("evictable: {makeBeforeBreak: true}\nstrategies:\n  RemovePodsViolatingNodeTaints: {includedTaints: [" + surgeTaint + "]}\n")
			r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", state, "--step-timeout", "15s", "-o", "json")
			if r.code != 0 {
				t.Errorf("run exited %d, want 0: a surge undone is an outcome, not a failure", r.code)
			}
			m := onlySurge(t, decode(t, r), f.nodes[0])
			t.Logf("%s from %s to %s: %s (%s)", m.Pod, m.From, m.To, m.Result, m.Message)
			waiting := "to be Ready;"
			if tc.dark {
				waiting = "to be Ready on " + dark + ";"
				if m.To != dark {
					t.Errorf("move of %s to %s; want to %s, the only node it fits", m.Pod, m.To, dark)
				}
			}
			if m.Result != evictor.RolledBack || !strings.Contains(m.Message, "--step-timeout 15s reached") ||
				!strings.Contains(m.Message, waiting) || !strings.Contains(m.Message, "the pod stays") {
				t.Errorf("move of %s: %s (%s); want %s, saying --step-timeout 15s was reached waiting for the new pod %s and the pod stays",
					m.Pod, m.Result, m.Message, evictor.RolledBack, strings.TrimSuffix(waiting, ";"))
			}
			f.expectEvent(m, corev1.EventTypeWarning, evictor.ReasonRolledBack, "--step-timeout 15s reached")
			if _, err := cp.WaitForPodsRunning(ctx, f.ns, web.Selector(), 1); err != nil {
				t.Fatal(err)
			}
			after := pods(t, cp, f.ns, web.Selector())
			if problems := unchanged(before, after); len(problems) > 0 || len(after) != 1 {
				t.Errorf("pods after the run: %v; want the old one untouched (%s)", slices.Sorted(maps.Keys(after)), strings.Join(problems, "; "))
			}
			for name, p := range after {
				if b := before[name]; p.Spec.NodeName != b.Spec.NodeName || !maps.Equal(p.Annotations, b.Annotations) {
					t.Errorf("%s on %s with the annotations %v; was on %s with %v", name, p.Spec.NodeName, p.Annotations, b.Spec.NodeName, b.Annotations)
				}
			}
			f.expectDeclared(d0, 1)
			f.expectNoSurgeLeft()
		})
	}
}

// TestSurgeRefusedByAQuota: a ResourceQuota that leaves no room for the
// extra pod makes the ReplicaSet controller fail to create it. The surge
// is rolled back at once, saying so, not after --step-timeout, and the
// run does not fail.
func TestSurgeRefusedByAQuota(t *testing.T) {
	cp := sharedControlPlane(t)
	ctx := t.Context()
	f := newFixture(t, cp, "surge-quota", 2, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	web := f.surgeWorkload("web", 1, manualScheduler)
	before := f.deployOn(web, f.nodes[0])
	f.pdb(web, "minAvailable", 1)
	f.taint(f.nodes[0])
	d0 := f.deployment(web.Name)

	// The harness runs no resource quota controller: the test posts the
	// usage it would, one pod of one.
	quotas := cp.Client.CoreV1().ResourceQuotas(f.ns)
	one := corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}
	q, err := quotas.Create(ctx, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "pods"}, Spec: corev1.ResourceQuotaSpec{Hard: one}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	q.Status = corev1.ResourceQuotaStatus{Hard: one, Used: one}
	if _, err := quotas.UpdateStatus(ctx, q, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	pol := f.policy("evictable: {makeBeforeBreak: true}\nstrategies:\n  RemovePodsViolatingNodeTaints: {includedTaints: [" + surgeTaint + "]}\n")
	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", f.ns+"/rebalancer-state", "--step-timeout", "60s", "-o", "json")
	if r.code != 0 {
		t.Errorf("run exited %d, want 0: a refused surge is an outcome, not a failure", r.code)
	}
	m := onlySurge(t, decode(t, r), f.nodes[0])
	t.Logf("%s from %s to %s: %s (%s) after %s", m.Pod, m.From, m.To, m.Result, m.Message, r.wall().Round(time.Millisecond))
	if m.Result != evictor.RolledBack || !strings.Contains(m.Message, "could not create the extra pod") || !strings.Contains(m.Message, "exceeded quota") {
		t.Errorf("move of %s: %s (%s); want %s, saying the quota refused the extra pod", m.Pod, m.Result, m.Message, evictor.RolledBack)
	}
	if r.wall() > 30*time.Second {
		t.Errorf("the run took %s; a refused pod needs no wait for --step-timeout", r.wall())
	}
	f.expectEvent(m, corev1.EventTypeWarning, evictor.ReasonRolledBack, "exceeded quota")
	if problems := unchanged(before, pods(t, cp, f.ns, web.Selector())); len(problems) > 0 {
		t.Errorf("web disturbed: %s", strings.Join(problems, "; "))
	}
	f.expectDeclared(d0, 1)
	f.expectNoSurgeLeft()
}

// TestSurgeOffByDefault: the cluster of TestSurgeMovesASingleReplica with
// the setting left at its default. The pod is skipped for its budget, the
// skip names the setting, and nothing changes.
func TestSurgeOffByDefault(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, "surge-off", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	web := f.surgeWorkload("web", 1, "rebalancer")
	before := f.deployOn(web, f.nodes[0])
	f.pdb(web, "minAvailable", 1)
	f.taint(f.nodes[0])
	d0 := f.deployment(web.Name)
	state := f.ns + "/rebalancer-state"

	pol := f.policy("strategies:\n  RemovePodsViolatingNodeTaints: {includedTaints: [" + surgeTaint + "]}\n")
	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", state, "-o", "json")
	if r.code != 0 {
		t.Fatalf("run exited %d, want 0", r.code)
	}
	rep := decode(t, r)
	if len(rep.Moves) != 0 {
		t.Errorf("%d moves, want none", len(rep.Moves))
	}
	var skips []planner.Skip
	for _, s := range rep.Skipped {
		if strings.HasPrefix(s.Pod, f.ns+"/web-") {
			skips = append(skips, s)
		}
	}
	if len(skips) != 1 || skips[0].Category != planner.PDBBudget ||
		!strings.Contains(skips[0].Reason, "can never allow a disruption") || !strings.Contains(skips[0].Reason, "evictable.makeBeforeBreak") {
		t.Errorf("skips of web: %+v; want one of category %q saying the budget can never allow a disruption and naming evictable.makeBeforeBreak", skips, planner.PDBBudget)
	}
	if problems := unchanged(before, pods(t, cp, f.ns, web.Selector())); len(problems) > 0 {
		t.Errorf("web disturbed: %s", strings.Join(problems, "; "))
	}
	d := f.deployment(web.Name)
	if d.Generation != d0.Generation || *d.Spec.Replicas != 1 {
		t.Errorf("the Deployment is at generation %d with spec.replicas %d; want %d and 1, untouched", d.Generation, *d.Spec.Replicas, d0.Generation)
	}
	f.expectNoSurgeLeft()
}

// surgeWorkload is a Deployment whose pods stay on the fixture's nodes and
// do not tolerate surgeTaint.
func (f *fixture) surgeWorkload(name string, replicas int32, scheduler string) harness.WorkloadSpec {
	return harness.WorkloadSpec{Namespace: f.ns, Name: name, Replicas: replicas, CPU: "500m", SchedulerName: scheduler,
		NodeSelector: map[string]string{harness.NodeSetLabel: f.ns}}
}

// deployOn creates the Deployment, binds its pods to node and waits until
// the Deployment counts them all available: a surge starts only from a
// Deployment at rest. It keeps the Deployment's own strategy (pile sets
// maxUnavailable 100%).
func (f *fixture) deployOn(spec harness.WorkloadSpec, node string) map[string]corev1.Pod {
	f.t.Helper()
	ctx := f.t.Context()
	if _, err := f.cp.CreateDeployment(ctx, spec); err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.cp.BindPendingPods(ctx, f.ns, spec.Selector(), int(spec.Replicas), []string{node}); err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.cp.WaitForPodsRunning(ctx, f.ns, spec.Selector(), int(spec.Replicas)); err != nil {
		f.t.Fatal(err)
	}
	err := harness.WaitFor(ctx, time.Minute, "Deployment "+spec.Name+" available", func(ctx context.Context) (bool, error) {
		d, err := f.cp.Client.AppsV1().Deployments(f.ns).Get(ctx, spec.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		st := d.Status
		return st.ObservedGeneration >= d.Generation && st.ReadyReplicas == spec.Replicas && st.AvailableReplicas == spec.Replicas &&
			st.UpdatedReplicas == spec.Replicas && st.Replicas == spec.Replicas, nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return pods(f.t, f.cp, f.ns, spec.Selector())
}

// pdb covers the workload with a budget that never allows a disruption.
func (f *fixture) pdb(spec harness.WorkloadSpec, field string, n int32) {
	f.t.Helper()
	v := intstr.FromInt32(n)
	s := harness.PDBSpec{Namespace: f.ns, Name: spec.Name, Selector: spec.PodLabels()}
	if field == "minAvailable" {
		s.MinAvailable = &v
	} else {
		s.MaxUnavailable = &v
	}
	pdb, err := f.cp.CreatePDB(f.t.Context(), s)
	if err != nil {
		f.t.Fatal(err)
	}
	if pdb.Status.DisruptionsAllowed != 0 || pdb.Status.CurrentHealthy != spec.Replicas {
		f.t.Fatalf("PDB %s: %d disruptions allowed, %d healthy; want 0 of %d", pdb.Name, pdb.Status.DisruptionsAllowed, pdb.Status.CurrentHealthy, spec.Replicas)
	}
}

func (f *fixture) taint(node string) {
	f.t.Helper()
	patch := []byte(`{"spec":{"taints":[{"key":"` + surgeTaint + `","value":"leave","effect":"NoSchedule"}]}}`)
	if _, err := f.cp.Client.CoreV1().Nodes().Patch(f.t.Context(), node, types.StrategicMergePatchType, patch, metav1.PatchOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) deployment(name string) *appsv1.Deployment {
	f.t.Helper()
	d, err := f.cp.Client.AppsV1().Deployments(f.ns).Get(f.t.Context(), name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return d
}

// scheduler starts `rebalancer schedule`, which places the pods that name
// it where the recorded intents say.
func (f *fixture) scheduler(state string) *daemon {
	f.t.Helper()
	sched := startRebalancer(f.t, "schedule", "--kubeconfig", f.cp.Kubeconfig, "--state-configmap", state)
	err := harness.WaitFor(f.t.Context(), time.Minute, "the scheduler to start", func(context.Context) (bool, error) {
		if err := sched.exited(); err != nil {
			return false, err
		}
		return strings.Contains(sched.stderr.String(), `"Scheduler started"`), nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return sched
}

// readyWatch follows a Deployment's status.readyReplicas through every
// change the API server reports.
type readyWatch struct {
	w    watch.Interface
	done chan struct{}
	mu   sync.Mutex
	low  int32
	seen []int32
}

func (f *fixture) watchReady(name string) *readyWatch {
	f.t.Helper()
	ctx := f.t.Context()
	deployments := f.cp.Client.AppsV1().Deployments(f.ns)
	sel := fields.OneTermEqualSelector("metadata.name", name).String()
	list, err := deployments.List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil || len(list.Items) != 1 {
		f.t.Fatalf("Deployment %s: %v", name, err)
	}
	w, err := deployments.Watch(ctx, metav1.ListOptions{FieldSelector: sel, ResourceVersion: list.ResourceVersion})
	if err != nil {
		f.t.Fatal(err)
	}
	rw := &readyWatch{w: w, done: make(chan struct{}), low: list.Items[0].Status.ReadyReplicas, seen: []int32{list.Items[0].Status.ReadyReplicas}}
	go func() {
		defer close(rw.done)
		for ev := range w.ResultChan() {
			d, ok := ev.Object.(*appsv1.Deployment)
			if !ok {
				continue
			}
			rw.mu.Lock()
			n := d.Status.ReadyReplicas
			if ev.Type == watch.Deleted {
				n = 0
			}
			if n != rw.seen[len(rw.seen)-1] {
				rw.seen = append(rw.seen, n)
			}
			rw.low = min(rw.low, n)
			rw.mu.Unlock()
		}
	}()
	f.t.Cleanup(func() { w.Stop() })
	return rw
}

// stop ends the watch and returns the lowest count it saw and the counts
// in the order they came.
func (rw *readyWatch) stop() (int32, []int32) {
	rw.w.Stop()
	<-rw.done
	rw.mu.Lock()
	defer rw.mu.Unlock()
	return rw.low, rw.seen
}

// onlySurge returns the run's only move, which must be a surge off from.
func onlySurge(t *testing.T, rep report.Report, from string) report.Move {
	t.Helper()
	if len(rep.Moves) != 1 {
		t.Fatalf("%d moves, want 1: %+v", len(rep.Moves), rep.Moves)
	}
	m := rep.Moves[0]
	if !m.Surge || m.From != from || m.To == "" || m.To == from {
		t.Fatalf("move of %s from %s to %q, surge %v; want a surge from %s to another node", m.Pod, m.From, m.To, m.Surge, from)
	}
	return m
}

// expectDeclared checks that the Deployment is as the user declared it:
// spec.replicas and the pod template as before the run, and that no pod of
// its namespace keeps the deletion cost a surge sets.
func (f *fixture) expectDeclared(before *appsv1.Deployment, replicas int32) {
	f.t.Helper()
	d := f.deployment(before.Name)
	if d.Spec.Replicas == nil || *d.Spec.Replicas != replicas {
		f.t.Errorf("Deployment %s has spec.replicas %v, want %d", d.Name, d.Spec.Replicas, replicas)
	}
	if !apiequality.Semantic.DeepEqual(d.Spec.Template, before.Spec.Template) {
		f.t.Errorf("Deployment %s's pod template changed:\nbefore %+v\nafter  %+v", d.Name, before.Spec.Template, d.Spec.Template)
	}
	for name, p := range pods(f.t, f.cp, f.ns, "") {
		if v, ok := p.Annotations[corev1.PodDeletionCost]; ok && v == lowestCost {
			f.t.Errorf("pod %s keeps %s=%s", name, corev1.PodDeletionCost, v)
		}
	}
}

// expectSteered checks that `rebalancer schedule` placed each new pod of
// the workload by the run's intent, not by its own choice.
func (f *fixture) expectSteered(sched *daemon, before map[string]corev1.Pod, spec harness.WorkloadSpec) {
	f.t.Helper()
	// Stopped first: it writes the events it recorded before it exits.
	if code := sched.stop(f.t); code != 0 {
		f.t.Errorf("the scheduler exited %d on SIGTERM", code)
	}
	events := rebalancerEvents(f.t, f.cp, f.ns)
	for name, p := range pods(f.t, f.cp, f.ns, spec.Selector()) {
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
			f.t.Errorf("new pod %s on %s: Scheduled events %q; want one saying the plan placed it", name, p.Spec.NodeName, how)
			continue
		}
		f.t.Logf("%s on %s: %s", name, p.Spec.NodeName, how[0])
	}
}

// expectEvent checks that the run recorded one event on the moved pod,
// of the given type and reason, that says what.
func (f *fixture) expectEvent(m report.Move, kind, reason, what string) {
	f.t.Helper()
	var got []string
	for _, e := range rebalancerEvents(f.t, f.cp, f.ns) {
		if e.InvolvedObject.UID == m.UID {
			got = append(got, e.Type+" "+e.Reason+": "+e.Message)
		}
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], kind+" "+reason+": ") || !strings.Contains(got[0], what) {
		f.t.Errorf("events on %s: %q; want one %s %s saying %q", m.Pod, got, kind, reason, what)
	}
}

// surges returns the surges under way the state ConfigMap records.
func (f *fixture) surges() []cluster.Surge {
	f.t.Helper()
	cm, err := f.cp.Client.CoreV1().ConfigMaps(f.ns).Get(f.t.Context(), "rebalancer-state", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		f.t.Fatal(err)
	}
	s, err := cluster.DecodeSurges(cm)
	if err != nil {
		f.t.Fatalf("the state's surges do not decode: %v", err)
	}
	return s
}

func (f *fixture) expectNoSurgeLeft() {
	f.t.Helper()
	if s := f.surges(); len(s) > 0 {
		f.t.Errorf("the state still records the surges %+v", s)
	}
}

// waitLeaseExpired waits until the run Lease a killed run held has expired.
func (f *fixture) waitLeaseExpired(lease string) {
	f.t.Helper()
	ns, name, _ := strings.Cut(lease, "/")
	err := harness.WaitFor(f.t.Context(), time.Minute, "the Lease "+lease+" to expire", func(ctx context.Context) (bool, error) {
		l, err := f.cp.Client.CoordinationV1().Leases(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		if l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil {
			return false, errors.New("the Lease has no renewTime or duration")
		}
		return time.Since(l.Spec.RenewTime.Time) > time.Duration(*l.Spec.LeaseDurationSeconds)*time.Second, nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// darkNode adds to the fixture's node set a node kwok does not manage: it
// runs no pod, while the test posts its Ready condition and renews its
// node Lease as a kubelet would, so that the node lifecycle controller
// lifts its not-ready taint and keeps it Ready. It is deleted with the
// test.
func (f *fixture) darkNode() string {
	f.t.Helper()
	ctx := f.t.Context()
	name := f.ns + "-dark"
	capacity := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi"),
		corev1.ResourcePods: resource.MustParse("110")}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{harness.NodeSetLabel: f.ns, corev1.LabelHostname: name,
			corev1.LabelOSStable: "linux", corev1.LabelArchStable: "amd64"}},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
	nodes := f.cp.Client.CoreV1().Nodes()
	if _, err := nodes.Create(ctx, node, metav1.CreateOptions{}); err != nil {
		f.t.Fatal(err)
	}
	leases := f.cp.Client.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	f.t.Cleanup(func() {
		cctx := context.WithoutCancel(ctx)
		_ = nodes.Delete(cctx, name, metav1.DeleteOptions{})
		_ = leases.Delete(cctx, name, metav1.DeleteOptions{})
	})

	beat := func(ctx context.Context) error {
		now := metav1.NewMicroTime(time.Now())
		l, err := leases.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			l = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec: coordinationv1.LeaseSpec{HolderIdentity: &name, LeaseDurationSeconds: ptr.To[int32](40), RenewTime: &now}}
			_, err = leases.Create(ctx, l, metav1.CreateOptions{})
			return err
		}
		if err != nil {
			return err
		}
		l.Spec.RenewTime = &now
		_, err = leases.Update(ctx, l, metav1.UpdateOptions{})
		return err
	}
	if err := beat(ctx); err != nil {
		f.t.Fatal(err)
	}
	// A patch: the node lifecycle controller changes the node meanwhile.
	now := metav1.Now()
	ready, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": []corev1.NodeCondition{{Type: corev1.NodeReady,
		Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: now, LastTransitionTime: now}}}})
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := nodes.Patch(ctx, name, types.StrategicMergePatchType, ready, metav1.PatchOptions{}, "status"); err != nil {
		f.t.Fatal(err)
	}
	bctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-bctx.Done():
				return
			case <-time.After(5 * time.Second):
				_ = beat(bctx)
			}
		}
	}()
	f.t.Cleanup(func() { stop(); <-done })

	err = harness.WaitFor(ctx, time.Minute, name+" Ready without the not-ready taint", func(ctx context.Context) (bool, error) {
		n, err := nodes.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return harness.NodeReady(n) && len(n.Spec.Taints) == 0, nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return name
}
