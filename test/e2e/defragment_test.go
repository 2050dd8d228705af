package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/report"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// defragmentPolicy serves the fixture's pending pods as soon as they are
// found unschedulable.
const defragmentPolicy = `strategies:
  DefragmentForPendingPods: {minPendingAge: 0s}
`

// defragmentNote is the report's note of DefragmentForPendingPods about
// the pending pod, or "".
func defragmentNote(rep report.Report, pod string) string {
	for _, n := range rep.Notes {
		if n.Strategy == "DefragmentForPendingPods" && strings.HasPrefix(n.Text, "pending "+pod+" ") {
			return n.Text
		}
	}
	return ""
}

// pendingPodOf waits until the workload's one pod has been found
// unschedulable by its scheduler and returns it.
func pendingPodOf(t *testing.T, cp *harness.ControlPlane, ns string, w harness.WorkloadSpec) corev1.Pod {
	t.Helper()
	var found corev1.Pod
	var last string
	err := harness.WaitFor(t.Context(), 2*time.Minute, w.Name+"'s pod found unschedulable", func(ctx context.Context) (bool, error) {
		now := pods(t, cp, ns, w.Selector())
		last = fmt.Sprintf("%d pods", len(now))
		for _, p := range now {
			last = fmt.Sprintf("%s on %q, conditions %v", p.Name, p.Spec.NodeName, p.Status.Conditions)
			if p.Spec.NodeName == "" && unschedulableMessage(&p) != "" {
				found = p
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("%v (last: %s)", err, last)
	}
	return found
}

// markUnschedulable sets the pod's PodScheduled condition as kube-scheduler
// leaves a pod it found no node for, standing in for it.
func markUnschedulable(t *testing.T, cp *harness.ControlPlane, p *corev1.Pod, message string) {
	t.Helper()
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{
		Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
		Message: message, LastTransitionTime: metav1.Now(),
	})
	if _, err := cp.Client.CoreV1().Pods(p.Namespace).UpdateStatus(t.Context(), p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestDefragmentMakesRoomForAPendingPod is the strategy's case: ten
// nodes with 1.5 CPU free each and a pod of the same priority that asks
// for 3. One run moves two 750m pods off one node, each to another node;
// `rebalancer schedule` binds their replacements where the plan said and
// the pending pod on the node they left; nothing is preempted.
func TestDefragmentMakesRoomForAPendingPod(t *testing.T) {
	cp := sharedControlPlane(t)
	ctx := t.Context()
	f := newFixture(t, cp, "defrag", 10, harness.NodeSpec{CPU: "3", Memory: "8Gi"})
	name := "e2e-" + f.ns
	onFixture := map[string]string{harness.NodeSetLabel: f.ns}
	small := harness.WorkloadSpec{Name: "small", Replicas: 20, CPU: "750m", SchedulerName: name, NodeSelector: onFixture}
	// Bound by the test before the scheduler starts: two on each node.
	before := f.pile(small, f.nodes...)
	perNode := countBy(mapValues(before), func(p corev1.Pod) string { return p.Spec.NodeName })
	for _, n := range f.nodes {
		if perNode[n] != 2 {
			t.Fatalf("pods of small by node %v, want two on each of %v", perNode, f.nodes)
		}
	}
	state := f.ns + "/rebalancer-state"
	sched := startScheduler(t, cp.Kubeconfig, name, "--state-configmap", state)

	big := harness.WorkloadSpec{Namespace: f.ns, Name: "big", Replicas: 1, CPU: "3", SchedulerName: name, NodeSelector: onFixture}
	if _, err := cp.CreateDeployment(ctx, big); err != nil {
		t.Fatal(err)
	}
	pending := pendingPodOf(t, cp, f.ns, big)
	key := f.ns + "/" + pending.Name

	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", f.policy(defragmentPolicy), "--state-configmap", state, "-o", "json")
	if r.code != 0 {
		t.Fatalf("run exited %d, want 0", r.code)
	}
	rep := decode(t, r)
	if len(rep.Moves) != 2 || rep.Summary.Results[evictor.Evicted] != 2 {
		t.Fatalf("%d moves, %d evicted; want exactly 2 evicted, the fewest that make room (moves %+v, notes %+v)",
			len(rep.Moves), rep.Summary.Results[evictor.Evicted], rep.Moves, rep.Notes)
	}
	freed := rep.Moves[0].From
	evicted := map[string]report.Move{} // by UID
	var planned []string
	for _, m := range rep.Moves {
		if m.Result != evictor.Evicted || m.Strategy != "DefragmentForPendingPods" {
			t.Errorf("move of %s by %s: %s (%s); want both evicted by DefragmentForPendingPods", m.Pod, m.Strategy, m.Result, m.Message)
		}
		if m.From != freed || m.To == "" || m.To == freed {
			t.Errorf("move of %s from %s to %q; want both from one node, each to another", m.Pod, m.From, m.To)
		}
		evicted[string(m.UID)] = m
		planned = append(planned, m.To)
	}
	if len(rep.Placements) != 1 || rep.Placements[0].Pod != key || rep.Placements[0].Node != freed {
		t.Errorf("placements %+v, want %s on %s", rep.Placements, key, freed)
	}

	// The pending pod binds to the node the moves freed. A scheduler may
	// try it again only after its backoff, or at the periodic flush.
	bound := waitForPod(t, cp, f.ns, pending.Name, 6*time.Minute, "Running", harness.PodRunning)
	if bound.Spec.NodeName != freed {
		t.Errorf("%s bound to %s, want %s, the node the moves freed", key, bound.Spec.NodeName, freed)
	}

	// The moved pods run elsewhere, where the plan said; the others are
	// untouched.
	running, err := cp.WaitForPodsRunning(ctx, f.ns, small.Selector(), int(small.Replicas))
	if err != nil {
		t.Fatalf("small after the run: %v", err)
	}
	after := map[string]corev1.Pod{}
	var placed []string
	for _, p := range running {
		after[p.Name] = p
		if _, ok := evicted[string(p.UID)]; ok {
			t.Errorf("evicted pod %s is Running again", p.Name)
		}
		if _, old := before[p.Name]; !old {
			placed = append(placed, p.Spec.NodeName)
		}
	}
	sort.Strings(planned)
	sort.Strings(placed)
	if strings.Join(placed, " ") != strings.Join(planned, " ") {
		t.Errorf("replacements bound to %v; the plan named %v", placed, planned)
	}
	kept := map[string]corev1.Pod{}
	for n, p := range before {
		if _, ok := evicted[string(p.UID)]; !ok {
			kept[n] = p
		}
	}
	if problems := unchanged(kept, after); len(problems) > 0 {
		t.Errorf("pods the run did not move: %s", strings.Join(problems, ", "))
	}
	for _, e := range rebalancerEventsFrom(t, cp, f.ns, name) {
		if e.Reason == "Preempted" {
			t.Errorf("%s was preempted: %s", e.InvolvedObject.Name, e.Message)
		}
	}
	if code := sched.stop(t); code != 0 {
		t.Errorf("the scheduler exited %d on SIGTERM", code)
	}
}

// TestDefragmentLeavesAPodNothingCanHelp: a pod that asks for more CPU
// than any node has: nothing is evicted, and the report says why.
func TestDefragmentLeavesAPodNothingCanHelp(t *testing.T) {
	cp := sharedControlPlane(t)
	ctx := t.Context()
	f := newFixture(t, cp, "defrag-none", 3, harness.NodeSpec{CPU: "3", Memory: "8Gi"})
	name := "e2e-" + f.ns
	onFixture := map[string]string{harness.NodeSetLabel: f.ns}
	small := harness.WorkloadSpec{Name: "small", Replicas: 6, CPU: "750m", SchedulerName: name, NodeSelector: onFixture}
	before := f.pile(small, f.nodes...)
	sched := startScheduler(t, cp.Kubeconfig, name)

	huge := harness.WorkloadSpec{Namespace: f.ns, Name: "huge", Replicas: 1, CPU: "4", SchedulerName: name, NodeSelector: onFixture}
	if _, err := cp.CreateDeployment(ctx, huge); err != nil {
		t.Fatal(err)
	}
	pending := pendingPodOf(t, cp, f.ns, huge)
	key := f.ns + "/" + pending.Name

	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", f.policy(defragmentPolicy), "--state-configmap", f.ns+"/rebalancer-state", "-o", "json")
	if r.code != 0 {
		t.Fatalf("run exited %d, want 0", r.code)
	}
	rep := decode(t, r)
	if len(rep.Moves) != 0 || len(rep.Placements) != 0 {
		t.Errorf("moves %+v, placements %+v; want none", rep.Moves, rep.Placements)
	}
	want := "pending " + key + " is left alone: it asks for 4 cpu, more than any node's allocatable (at most 3)"
	if note := defragmentNote(rep, key); note != want {
		t.Errorf("note %q, want %q (notes %+v)", note, want, rep.Notes)
	}
	if problems := unchanged(before, pods(t, cp, f.ns, small.Selector())); len(problems) > 0 {
		t.Errorf("pods of small: %s", strings.Join(problems, ", "))
	}
	if code := sched.stop(t); code != 0 {
		t.Errorf("the scheduler exited %d on SIGTERM", code)
	}
}

// TestDefragmentLeavesPreemptionToTheScheduler: a pending pod of higher
// priority that kube-scheduler's preemption would serve, although moves
// could also make room for it. The test stands in for a scheduler that has
// found it unschedulable and not yet preempted: the run evicts nothing and
// its note says that preemption serves the pod.
func TestDefragmentLeavesPreemptionToTheScheduler(t *testing.T) {
	cp := sharedControlPlane(t)
	ctx := t.Context()
	f := newFixture(t, cp, "defrag-preempt", 3, harness.NodeSpec{CPU: "2", Memory: "8Gi"})
	name := "e2e-" + f.ns
	low := priorityClass(t, cp, name+"-low", 10, corev1.PreemptLowerPriority)
	high := priorityClass(t, cp, name+"-high", 1000, corev1.PreemptLowerPriority)
	onFixture := map[string]string{harness.NodeSetLabel: f.ns}
	// 1 CPU free on each node: two moves would make room on one as well.
	batch := harness.WorkloadSpec{Name: "batch", Replicas: 6, CPU: "500m", NodeSelector: onFixture,
		PodTemplate: func(t *corev1.PodTemplateSpec) { t.Spec.PriorityClassName = low }}
	before := f.pile(batch, f.nodes...)

	urgent := harness.WorkloadSpec{Namespace: f.ns, Name: "urgent", Replicas: 1, CPU: "2", SchedulerName: manualScheduler, NodeSelector: onFixture,
		PodTemplate: func(t *corev1.PodTemplateSpec) { t.Spec.PriorityClassName = high }}
	if _, err := cp.CreateDeployment(ctx, urgent); err != nil {
		t.Fatal(err)
	}
	var pending corev1.Pod
	err := harness.WaitFor(ctx, time.Minute, "urgent's pod", func(context.Context) (bool, error) {
		for _, p := range pods(t, cp, f.ns, urgent.Selector()) {
			pending = p
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pending.Spec.Priority == nil || *pending.Spec.Priority != 1000 {
		t.Fatalf("urgent's pod has priority %v, want 1000 from its PriorityClass", pending.Spec.Priority)
	}
	markUnschedulable(t, cp, &pending, "0/3 nodes are available: 3 Insufficient cpu.")
	key := f.ns + "/" + pending.Name

	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", f.policy(defragmentPolicy), "--state-configmap", f.ns+"/rebalancer-state", "-o", "json")
	if r.code != 0 {
		t.Fatalf("run exited %d, want 0", r.code)
	}
	rep := decode(t, r)
	if len(rep.Moves) != 0 || len(rep.Placements) != 0 {
		t.Errorf("moves %+v, placements %+v; want none: preemption serves the pod", rep.Moves, rep.Placements)
	}
	prefix := "pending " + key + " is left to kube-scheduler's preemption: removing pods of lower priority from "
	if note := defragmentNote(rep, key); !strings.HasPrefix(note, prefix) {
		t.Errorf("note %q, want one starting %q (notes %+v)", note, prefix, rep.Notes)
	}
	if problems := unchanged(before, pods(t, cp, f.ns, batch.Selector())); len(problems) > 0 {
		t.Errorf("pods of batch: %s", strings.Join(problems, ", "))
	}
}

func mapValues[K comparable, V any](m map[K]V) []V {
	out := make([]V, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// TestDefragmentHoldsTheFreedNode: the node the moves free is held for
// the pending pod until it binds. A pod of the same priority that asks for
// the same room, created right after the run's evictions, while the moved
// pods are still leaving and the pending pod waits out its backoff, does
// not take it: the pending pod ends Running on the freed node and the
// other waits.
func TestDefragmentHoldsTheFreedNode(t *testing.T) {
	cp := sharedControlPlane(t)
	ctx := t.Context()
	f := newFixture(t, cp, "defrag-hold", 4, harness.NodeSpec{CPU: "3", Memory: "8Gi"})
	name := "e2e-" + f.ns
	onFixture := map[string]string{harness.NodeSetLabel: f.ns}
	small := harness.WorkloadSpec{Name: "small", Replicas: 8, CPU: "750m", SchedulerName: name, NodeSelector: onFixture}
	f.pile(small, f.nodes...)
	state := f.ns + "/rebalancer-state"
	sched := startScheduler(t, cp.Kubeconfig, name, "--state-configmap", state)

	big := harness.WorkloadSpec{Namespace: f.ns, Name: "big", Replicas: 1, CPU: "3", SchedulerName: name, NodeSelector: onFixture}
	if _, err := cp.CreateDeployment(ctx, big); err != nil {
		t.Fatal(err)
	}
	pending := pendingPodOf(t, cp, f.ns, big)
	key := f.ns + "/" + pending.Name

	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", f.policy(defragmentPolicy), "--state-configmap", state, "-o", "json")
	if r.code != 0 {
		t.Fatalf("run exited %d, want 0", r.code)
	}
	// The rival comes at once: the same priority, the same room.
	rival := f.schedPod("rival", name, "3", "")
	rep := decode(t, r)
	if len(rep.Placements) != 1 || rep.Placements[0].Pod != key || rep.Summary.Results[evictor.Evicted] != 2 {
		t.Fatalf("placements %+v, %d evicted; want %s placed after 2 evictions (moves %+v)",
			rep.Placements, rep.Summary.Results[evictor.Evicted], key, rep.Moves)
	}
	freed := rep.Placements[0].Node

	cm, err := cp.Client.CoreV1().ConfigMaps(f.ns).Get(ctx, "rebalancer-state", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	holds, err := cluster.DecodeHolds(cm)
	if err != nil || len(holds) != 1 || holds[0].Pod != key || holds[0].UID != pending.UID || holds[0].Node != freed {
		t.Errorf("holds %+v (%v), want %s held on %s", holds, err, key, freed)
	}

	bound := waitForPod(t, cp, f.ns, pending.Name, 3*time.Minute, "Running", harness.PodRunning)
	if bound.Spec.NodeName != freed {
		t.Errorf("%s bound to %s, want %s, the node held for it", key, bound.Spec.NodeName, freed)
	}
	// The rival has been tried and found no room: it fits on no other node,
	// and the held one was not its to take.
	got := waitForPod(t, cp, f.ns, rival.Name, time.Minute, "found unschedulable", func(p *corev1.Pod) bool {
		return p.Spec.NodeName != "" || unschedulableMessage(p) != ""
	})
	if got.Spec.NodeName != "" {
		t.Errorf("the rival was bound to %s; want it to wait (the held pod is on %s)", got.Spec.NodeName, bound.Spec.NodeName)
	}
	if code := sched.stop(t); code != 0 {
		t.Errorf("the scheduler exited %d on SIGTERM", code)
	}
}
