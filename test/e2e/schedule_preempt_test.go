package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// fullCluster fills the fixture's two 2-CPU nodes with four 1-CPU pods of
// low priority, bound by the scheduler under test, and returns their names.
func fullCluster(t *testing.T, f *fixture, schedulerName, low string) []string {
	t.Helper()
	var names []string
	for i := range 4 {
		names = append(names, f.schedPod(fmt.Sprintf("batch-%d", i), schedulerName, "1", low).Name)
	}
	for _, name := range names {
		waitForPod(t, f.cp, f.ns, name, time.Minute, "Running", harness.PodRunning)
	}
	return names
}

func TestPreemptHigherPriorityPodBindsToTheNominatedNode(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, "preempt", 2, harness.NodeSpec{CPU: "2", Memory: "8Gi"})
	name := "e2e-" + f.ns
	low := priorityClass(t, cp, name+"-low", 10, corev1.PreemptLowerPriority)
	high := priorityClass(t, cp, name+"-high", 1000, corev1.PreemptLowerPriority)
	startScheduler(t, cp.Kubeconfig, name)
	batch := fullCluster(t, f, name, low)

	f.schedPod("urgent", name, "1", high)
	// The nomination comes first, the binding once the victim is gone.
	nominated := waitForPod(t, cp, f.ns, "urgent", time.Minute, "nominated", func(p *corev1.Pod) bool {
		return p.Status.NominatedNodeName != ""
	}).Status.NominatedNodeName
	urgent := waitForPod(t, cp, f.ns, "urgent", time.Minute, "Running", harness.PodRunning)
	if urgent.Spec.NodeName != nominated {
		t.Errorf("urgent bound to %s, nominated to %s", urgent.Spec.NodeName, nominated)
	}

	// One victim, from the nominated node; the other three untouched.
	var gone []string
	for _, n := range batch {
		p, err := cp.Client.CoreV1().Pods(f.ns).Get(t.Context(), n, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			gone = append(gone, n)
		case err != nil:
			t.Fatal(err)
		case p.DeletionTimestamp != nil:
			gone = append(gone, n+" (terminating)")
		}
	}
	if len(gone) != 1 {
		t.Errorf("victims %v, want exactly one 1-CPU pod", gone)
	}
	var preempted []string
	for _, e := range rebalancerEventsFrom(t, cp, f.ns, name) {
		if e.Reason == "Preempted" {
			preempted = append(preempted, e.InvolvedObject.Name+": "+e.Message)
		}
	}
	want := fmt.Sprintf("Preempted by pod %s on node %s", urgent.UID, nominated)
	if len(preempted) != 1 || !strings.HasSuffix(preempted[0], want) {
		t.Errorf("Preempted events %q, want one %q", preempted, want)
	}
}

func TestPreemptNeverStaysPending(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, "preempt-never", 2, harness.NodeSpec{CPU: "2", Memory: "8Gi"})
	name := "e2e-" + f.ns
	low := priorityClass(t, cp, name+"-low", 10, corev1.PreemptLowerPriority)
	polite := priorityClass(t, cp, name+"-polite", 1000, corev1.PreemptNever)
	startScheduler(t, cp.Kubeconfig, name)
	batch := fullCluster(t, f, name, low)

	f.schedPod("polite", name, "1", polite)
	p := waitForPod(t, cp, f.ns, "polite", time.Minute, "reported unschedulable", func(p *corev1.Pod) bool { return unschedulableMessage(p) != "" })
	// kube-scheduler's message: the filters' reasons, sorted as strings
	// (the other tests' nodes fail the node selector, and "13 node(s) …"
	// sorts before "2 Insufficient cpu"), then why preemption was not tried.
	msg := unschedulableMessage(p)
	if !twoInsufficientCPU.MatchString(msg) || !strings.HasSuffix(msg, ". no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never.") {
		t.Errorf("message %q, want kube-scheduler's: 2 Insufficient cpu, and preemption not eligible due to preemptionPolicy=Never", msg)
	}
	// Still Pending a while later, nothing nominated, nothing deleted.
	time.Sleep(5 * time.Second)
	p, err := cp.Client.CoreV1().Pods(f.ns).Get(t.Context(), "polite", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.NodeName != "" || p.Status.NominatedNodeName != "" {
		t.Errorf("polite on %q nominated to %q, want Pending with no nomination", p.Spec.NodeName, p.Status.NominatedNodeName)
	}
	for _, n := range batch {
		if b, err := cp.Client.CoreV1().Pods(f.ns).Get(t.Context(), n, metav1.GetOptions{}); err != nil || b.DeletionTimestamp != nil {
			t.Errorf("%s deleted (%v): a pod with preemptionPolicy Never preempts nothing", n, err)
		}
	}
}

// twoInsufficientCPU finds the reason of the fixture's two full nodes
// among the filters' reasons, wherever the other tests' nodes put it.
var twoInsufficientCPU = regexp.MustCompile(`nodes are available: (.*, )?2 Insufficient cpu[,.]`)

// rebalancerEventsFrom returns the namespace's events that the scheduler
// named component recorded.
func rebalancerEventsFrom(t *testing.T, cp *harness.ControlPlane, ns, component string) []corev1.Event {
	t.Helper()
	list, err := cp.Client.CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{FieldSelector: "source=" + component})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}
