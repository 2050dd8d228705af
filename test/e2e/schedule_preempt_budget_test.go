package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// kubeScheduler is the schedulerName kube-scheduler serves.
const kubeScheduler = corev1.DefaultSchedulerName

// budgetCase is the two-node case of preemption under a
// PodDisruptionBudget: two nodes of 1 CPU, tainted so that only the
// case's pods land there; prot, the one pod of a Deployment whose budget
// (minAvailable: 1) allows no disruption, on the first node; free, no
// budget's, on the second; both of low priority. urgent, of high
// priority and 1 CPU, fits on either node only once one of them goes.
type budgetCase struct {
	f         *fixture
	low, high string
	// prot and free are the pods as they ran before urgent came.
	prot, free corev1.Pod
}

// budgetCaseTaint keeps other tests' pods off the case's nodes.
const budgetCaseTaint = "rebalancer.test/preempt-budget"

// newBudgetCase builds the case in a namespace and node set of its own.
// prot's pods name protScheduler. free is a bare pod bound to its node,
// or with freeScheduler set, the one pod of a Deployment naming it.
func newBudgetCase(t *testing.T, cp *harness.ControlPlane, name, protScheduler, freeScheduler string) *budgetCase {
	t.Helper()
	ctx := t.Context()
	f := newFixture(t, cp, name, 2, harness.NodeSpec{CPU: "1", Memory: "8Gi",
		Taints: []corev1.Taint{{Key: budgetCaseTaint, Value: name, Effect: corev1.TaintEffectNoSchedule}}})
	c := &budgetCase{f: f,
		low:  priorityClass(t, cp, "e2e-"+name+"-low", 10, corev1.PreemptLowerPriority),
		high: priorityClass(t, cp, "e2e-"+name+"-high", 1000, corev1.PreemptLowerPriority)}
	workload := func(app, scheduler string, nodeSelector map[string]string) {
		spec := harness.WorkloadSpec{Namespace: name, Name: app, Replicas: 1, CPU: "1", Memory: "64Mi",
			NodeSelector: nodeSelector, Tolerations: c.tolerations(), SchedulerName: scheduler,
			PodTemplate: func(p *corev1.PodTemplateSpec) { p.Spec.PriorityClassName = c.low }}
		if _, err := cp.CreateDeployment(ctx, spec); err != nil {
			t.Fatal(err)
		}
		running, err := cp.WaitForPodsRunning(ctx, name, spec.Selector(), 1)
		if err != nil {
			t.Fatal(err)
		}
		if app == "prot" {
			c.prot = running[0]
		} else {
			c.free = running[0]
		}
	}
	// prot on the first node: the one preemption would try first if no
	// budget counted.
	workload("prot", protScheduler, map[string]string{corev1.LabelHostname: f.nodes[0]})
	if freeScheduler != "" {
		workload("free", freeScheduler, map[string]string{harness.NodeSetLabel: name})
	} else {
		p := c.pod("free", "", c.low)
		p.Spec.NodeName = f.nodes[1]
		if _, err := cp.Client.CoreV1().Pods(name).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		c.free = *waitForPod(t, cp, name, "free", time.Minute, "Running", harness.PodRunning)
	}
	one := intstr.FromInt32(1)
	pdb, err := cp.CreatePDB(ctx, harness.PDBSpec{Namespace: name, Name: "prot", Selector: map[string]string{"app": "prot"}, MinAvailable: &one})
	if err != nil {
		t.Fatal(err)
	}
	if pdb.Status.DisruptionsAllowed != 0 || pdb.Status.CurrentHealthy != 1 {
		t.Fatalf("budget: %d healthy, %d disruptions allowed; the case needs 1 and 0", pdb.Status.CurrentHealthy, pdb.Status.DisruptionsAllowed)
	}
	return c
}

func (c *budgetCase) tolerations() []corev1.Toleration {
	return []corev1.Toleration{{Key: budgetCaseTaint, Operator: corev1.TolerationOpEqual, Value: c.f.ns, Effect: corev1.TaintEffectNoSchedule}}
}

// pod is a pod of the case asking for 1 CPU on the case's nodes.
func (c *budgetCase) pod(name, scheduler, priorityClass string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: c.f.ns, Labels: map[string]string{"role": name}},
		Spec: corev1.PodSpec{
			SchedulerName:                 scheduler,
			PriorityClassName:             priorityClass,
			NodeSelector:                  map[string]string{harness.NodeSetLabel: c.f.ns},
			Tolerations:                   c.tolerations(),
			TerminationGracePeriodSeconds: new(int64),
			Containers: []corev1.Container{{Name: "app", Image: "registry.invalid/rebalancer/fake:1", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
			}}},
		},
	}
}

// preempt creates urgent for the scheduler and waits until it runs.
func (c *budgetCase) preempt(t *testing.T, scheduler string) *corev1.Pod {
	t.Helper()
	if _, err := c.f.cp.Client.CoreV1().Pods(c.f.ns).Create(t.Context(), c.pod("urgent", scheduler, c.high), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return waitForPod(t, c.f.cp, c.f.ns, "urgent", 2*time.Minute, "Running", harness.PodRunning)
}

// gone returns which of prot and free no longer run as they did.
func (c *budgetCase) gone(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, p := range []corev1.Pod{c.prot, c.free} {
		got, err := c.f.cp.Client.CoreV1().Pods(c.f.ns).Get(t.Context(), p.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			out = append(out, p.Labels["app"]+p.Labels["role"])
		case err != nil:
			t.Fatal(err)
		case got.UID != p.UID || got.DeletionTimestamp != nil:
			out = append(out, p.Labels["app"]+p.Labels["role"])
		}
	}
	return out
}

// preempted counts the Preempted events the scheduler recorded in the
// case's namespace, repeats included, by the pod they name.
func (c *budgetCase) preempted(t *testing.T, component string) map[string]int32 {
	t.Helper()
	out := map[string]int32{}
	for _, e := range rebalancerEventsFrom(t, c.f.cp, c.f.ns, component) {
		if e.Reason == "Preempted" {
			out[e.InvolvedObject.Name] += max(e.Count, 1)
		}
	}
	return out
}

// kube-scheduler, given two nodes each of which would fit the pod once its
// one pod of lower priority went, preempts the pod that no budget protects.
// rebalancer schedule, on the same control plane, makes the same choice;
// and although prot's ReplicaSet would put a replacement back where prot
// was, it preempts once: prot is never deleted, and urgent binds where free
// ran.
func TestSchedulePreemptsThePodKubeSchedulerPreemptsUnderABudget(t *testing.T) {
	cp := ownControlPlane(t, harness.Options{Scheduler: true})
	name := "e2e-preempt-budget"
	startScheduler(t, cp.Kubeconfig, name)

	victims := map[string][]string{}
	for _, sched := range []string{kubeScheduler, name} {
		c := newBudgetCase(t, cp, "budget-"+strings.TrimPrefix(sched, "e2e-"), kubeScheduler, "")
		urgent := c.preempt(t, sched)
		if urgent.Spec.NodeName != c.free.Spec.NodeName {
			t.Errorf("%s: urgent bound to %s, want %s, where free ran", sched, urgent.Spec.NodeName, c.free.Spec.NodeName)
		}
		victims[sched] = c.gone(t)
		if sched != name {
			continue
		}
		// A while later: still one preemption, prot untouched.
		time.Sleep(10 * time.Second)
		if got := c.gone(t); !slices.Equal(got, []string{"free"}) {
			t.Errorf("rebalancer schedule: %v gone after urgent bound, want only free", got)
		}
		if got := c.preempted(t, name); len(got) != 1 || got["free"] != 1 {
			t.Errorf("Preempted events by pod %v, want one, for free", got)
		}
	}
	if !slices.Equal(victims[kubeScheduler], []string{"free"}) {
		t.Fatalf("kube-scheduler preempted %v, the case expects free", victims[kubeScheduler])
	}
	if !slices.Equal(victims[name], victims[kubeScheduler]) {
		t.Errorf("rebalancer schedule preempted %v, kube-scheduler %v", victims[name], victims[kubeScheduler])
	}
}

// When every pod of the case is the live scheduler's, the victim's
// replacement waits: the room its preemption freed is held for urgent,
// which binds after exactly one preemption; prot, which a budget protects,
// is never deleted.
func TestSchedulePreemptsOnceWhileTheVictimIsReplaced(t *testing.T) {
	cp := sharedControlPlane(t)
	name := "e2e-preempt-once"
	startScheduler(t, cp.Kubeconfig, name)
	c := newBudgetCase(t, cp, "preempt-once", name, name)
	before, err := cp.Client.CoreV1().Pods(c.f.ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Every pod deleted from now on, whatever its name.
	deleted := make(chan string, 64)
	w, err := cp.Client.CoreV1().Pods(c.f.ns).Watch(t.Context(), metav1.ListOptions{ResourceVersion: before.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	go func() {
		for ev := range w.ResultChan() {
			if p, ok := ev.Object.(*corev1.Pod); ok && ev.Type == "DELETED" {
				deleted <- p.Name
			}
		}
	}()

	urgent := c.preempt(t, name)
	if urgent.Spec.NodeName != c.free.Spec.NodeName {
		t.Errorf("urgent bound to %s, want %s, where free ran", urgent.Spec.NodeName, c.free.Spec.NodeName)
	}
	time.Sleep(10 * time.Second)
	var names []string
	for len(deleted) > 0 {
		names = append(names, <-deleted)
	}
	if !slices.Equal(names, []string{c.free.Name}) {
		t.Errorf("pods deleted %v, want only %s", names, c.free.Name)
	}
	if got := c.gone(t); !slices.Equal(got, []string{"free"}) {
		t.Errorf("%v gone, want only free", got)
	}
	if got := c.preempted(t, name); len(got) != 1 || got[c.free.Name] != 1 {
		t.Errorf("Preempted events by pod %v, want one, for %s", got, c.free.Name)
	}
	// free's replacement is Pending: nowhere to go now.
	list, err := cp.Client.CoreV1().Pods(c.f.ns).List(t.Context(), metav1.ListOptions{LabelSelector: "app=free"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list.Items {
		if p.UID != c.free.UID && p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
			t.Errorf("free's replacement %s bound to %s, want it Pending", p.Name, p.Spec.NodeName)
		}
	}
}

// When another scheduler places the victim's replacement, it may put it
// where the victim ran before urgent binds: kube-scheduler does not know
// the live scheduler's nominations. urgent then either bound first, or
// waits, nominated, without preempting the replacement: one preemption
// either way, and prot, which a budget protects, is never deleted.
func TestScheduleDoesNotPreemptTheReplacementAnotherSchedulerPlaced(t *testing.T) {
	cp := ownControlPlane(t, harness.Options{Scheduler: true})
	name := "e2e-preempt-refill"
	startScheduler(t, cp.Kubeconfig, name)
	c := newBudgetCase(t, cp, "preempt-refill", kubeScheduler, kubeScheduler)
	if _, err := cp.Client.CoreV1().Pods(c.f.ns).Create(t.Context(), c.pod("urgent", name, c.high), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForPod(t, cp, c.f.ns, "urgent", time.Minute, "nominated", func(p *corev1.Pod) bool { return p.Status.NominatedNodeName != "" })
	// Long enough for several rounds of backoff: a loop would show.
	time.Sleep(20 * time.Second)
	if got := c.preempted(t, name); len(got) != 1 || got[c.free.Name] != 1 {
		t.Errorf("Preempted events by pod %v, want one, for %s", got, c.free.Name)
	}
	if got := c.gone(t); !slices.Equal(got, []string{"free"}) {
		t.Errorf("%v gone, want only free", got)
	}
	urgent := waitForPod(t, cp, c.f.ns, "urgent", time.Second, "read", func(*corev1.Pod) bool { return true })
	switch {
	case urgent.Spec.NodeName == c.free.Spec.NodeName:
		t.Logf("urgent bound to %s before the replacement came", urgent.Spec.NodeName)
	case urgent.Spec.NodeName != "":
		t.Errorf("urgent bound to %s, want %s, where free ran", urgent.Spec.NodeName, c.free.Spec.NodeName)
	case urgent.Status.NominatedNodeName != c.free.Spec.NodeName || !strings.Contains(unschedulableMessage(urgent), "preemption: not preempting "+c.f.ns+"/free-"):
		t.Errorf("urgent Pending, nominated to %q, message %q; want %s kept and the replacement of free not preempted",
			urgent.Status.NominatedNodeName, unschedulableMessage(urgent), c.free.Spec.NodeName)
	default:
		t.Logf("urgent waits: %s", unschedulableMessage(urgent))
	}
}
