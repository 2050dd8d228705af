package schedulerdiff

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/preemption"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// preemptionNamespace holds the pods of the preemption cases.
const preemptionNamespace = "sd-preempt"

// The priorities the cases use, each a PriorityClass "sd-p<value>", and
// "sd-p<value>-never" with preemptionPolicy Never: the Priority admission
// plugin fills spec.priority and spec.preemptionPolicy from the class.
var preemptionPriorities = []int32{10, 20, 50, 500, 1000}

func priorityClass(v int32) string { return fmt.Sprintf("sd-p%d", v) }

// runningPod is a pod of a preemption case, bound to its node from the
// start.
type runningPod struct {
	name, node string
	priority   int32
	cpu        string
	app        string // label app=<app>, for a budget
}

// preemptionCase is a small cluster of full nodes, optionally a budget,
// and one pod of higher priority that fits nowhere as it is.
type preemptionCase struct {
	name  string
	nodes []string // 4-CPU nodes; "<name>:tainted" taints one NoSchedule
	pods  []runningPod
	// budget, when set, is a PodDisruptionBudget over app=<budget> with
	// minAvailable budgetMin.
	budget    string
	budgetMin int
	// preemptor's priority and CPU request; never gives it preemptionPolicy: Never.
	priority int32
	cpu      string
	never    bool
	// antiAffinity, when set, keeps the preemptor off nodes running a pod
	// labelled app=<antiAffinity>; affinity holds it to nodes running one.
	antiAffinity, affinity string
	// spread, when set, spreads the preemptor with the pods labelled
	// app=<spread> over nodes, with maxSkew 1.
	spread string
}

var preemptionCases = []preemptionCase{
	{
		name:  "the lowest-priority pod makes room",
		nodes: []string{"a", "b"},
		pods: []runningPod{{"a-low", "a", 10, "2", ""}, {"a-high", "a", 1000, "2", ""},
			{"b-mid", "b", 50, "4", ""}},
		priority: 500, cpu: "2",
	},
	{
		name:     "every lower-priority pod of a node goes for a pod that needs all of it",
		nodes:    []string{"a"},
		pods:     []runningPod{{"a-10", "a", 10, "2", ""}, {"a-20", "a", 20, "2", ""}},
		priority: 500, cpu: "4",
	},
	{
		name:  "a pod a budget protects is reprieved before one it does not",
		nodes: []string{"a", "b"},
		pods: []runningPod{{"db-0", "a", 10, "2", "db"}, {"batch", "a", 50, "2", ""},
			{"b-high", "b", 1000, "4", ""}},
		budget: "db", budgetMin: 1,
		priority: 500, cpu: "2",
	},
	{
		name:  "the node without a budget violation wins",
		nodes: []string{"a", "b"},
		pods: []runningPod{{"db-0", "a", 10, "4", "db"},
			{"web", "b", 50, "4", ""}},
		budget: "db", budgetMin: 1,
		priority: 500, cpu: "2",
	},
	{
		name:  "the node whose victims' priorities add up to less wins",
		nodes: []string{"a", "b"},
		pods: []runningPod{{"a-50", "a", 50, "2", ""}, {"a-50b", "a", 50, "2", ""},
			{"b-50", "b", 50, "2", ""}, {"b-20", "b", 20, "2", ""}},
		priority: 500, cpu: "4",
	},
	{
		name:  "the most important victims are reprieved first, even if more pods go",
		nodes: []string{"a"},
		pods: []runningPod{{"a-10", "a", 10, "1", ""}, {"a-20", "a", 20, "1", ""},
			{"a-50", "a", 50, "2", ""}},
		priority: 500, cpu: "2",
	},
	{
		name:  "a pod in the way of the preemptor's anti-affinity is a victim",
		nodes: []string{"a", "b"},
		pods: []runningPod{{"a-low", "a", 10, "1", "x"},
			{"b-high", "b", 1000, "4", ""}},
		priority: 500, cpu: "1", antiAffinity: "x",
	},
	{
		name:  "a node the preemptor's required pod affinity rules out is no candidate",
		nodes: []string{"a", "b"},
		pods: []runningPod{{"a-low", "a", 10, "4", ""},
			{"b-high", "b", 1000, "4", "y"}},
		priority: 500, cpu: "1", affinity: "y",
	},
	{
		name:  "pods that skew the preemptor's spread are victims",
		nodes: []string{"a", "b"},
		pods: []runningPod{{"z-1", "a", 10, "1", "z"}, {"z-2", "a", 10, "1", "z"},
			{"b-high", "b", 1000, "4", ""}},
		priority: 500, cpu: "1", spread: "z",
	},
	{
		name:     "pods of equal priority are not victims",
		nodes:    []string{"a"},
		pods:     []runningPod{{"a-same", "a", 500, "4", ""}},
		priority: 500, cpu: "2",
	},
	{
		name:     "preemptionPolicy Never",
		nodes:    []string{"a"},
		pods:     []runningPod{{"a-low", "a", 10, "4", ""}},
		priority: 500, cpu: "2", never: true,
	},
	{
		name:  "a tainted node is no candidate",
		nodes: []string{"a:tainted", "b"},
		pods: []runningPod{{"a-low", "a", 10, "4", ""},
			{"b-high", "b", 1000, "4", ""}},
		priority: 500, cpu: "2",
	},
	{
		name:     "a request above the node's allocatable is no candidate",
		nodes:    []string{"a"},
		pods:     []runningPod{{"a-low", "a", 10, "4", ""}},
		priority: 500, cpu: "6",
	},
}

// preemptionOutcome is what each side decided for a case.
type preemptionOutcome struct {
	engine preemption.Decision
	// kubeNode is where kube-scheduler bound the preemptor ("" when it left
	// it Pending with kubeMessage); kubeNominated is the
	// status.nominatedNodeName it gave it; kubeVictims are the case's pods
	// it deleted.
	kubeNode, kubeNominated, kubeMessage string
	kubeVictims                          []string
}

// TestPreemptionAgreesWithKubeScheduler runs each preemption case on a
// kwok cluster with kube-scheduler: the engine's Preempt is asked first, on
// a snapshot of exactly the cluster kube-scheduler then sees, and must name
// the node kube-scheduler nominates and binds the pod to and the pods it
// deletes there, or, when kube-scheduler leaves the pod Pending, give its
// message word for word.
func TestPreemptionAgreesWithKubeScheduler(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Minute)
	defer cancel()
	cp, err := harness.Start(ctx, t, harness.Options{Scheduler: true})
	if err != nil {
		t.Fatalf("start control plane: %v", err)
	}
	if _, err := cp.CreateNamespace(ctx, preemptionNamespace); err != nil {
		t.Fatal(err)
	}
	for _, v := range preemptionPriorities {
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: priorityClass(v)}, Value: v}
		never := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: priorityClass(v) + "-never"}, Value: v,
			PreemptionPolicy: ptr.To(corev1.PreemptNever)}
		for _, c := range []*schedulingv1.PriorityClass{pc, never} {
			if _, err := cp.Client.SchedulingV1().PriorityClasses().Create(ctx, c, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	eng, err := engine.New(profile.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range preemptionCases {
		prefix := fmt.Sprintf("pe%d", i)
		o, err := runPreemptionCase(ctx, cp, eng, prefix, tc)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := fmt.Sprintf("node %q, victims %v", o.engine.Node, victimNames(o.engine.Victims, prefix))
		want := fmt.Sprintf("node %q, victims %v", o.kubeNode, o.kubeVictims)
		t.Logf("%s: kube-scheduler nominated %q, bound to %q, deleted %v, message %q; the engine: %s, message %q",
			tc.name, o.kubeNominated, o.kubeNode, o.kubeVictims, o.kubeMessage, got, o.engine.Message)
		if got != want {
			t.Errorf("%s: the engine preempts with %s; kube-scheduler with %s", tc.name, got, want)
		}
		if o.kubeNode != "" && o.kubeNominated != "" && o.kubeNominated != o.kubeNode {
			t.Errorf("%s: kube-scheduler nominated %s but bound to %s", tc.name, o.kubeNominated, o.kubeNode)
		}
		// What PostFilter says must be kube-scheduler's word for word;
		// how the filters' reasons are worded is the main differential
		// test's business, and only reported here.
		kubeFilters, kubePost := splitFitMessage(o.kubeMessage)
		engineFilters, enginePost := splitFitMessage(o.engine.Message)
		if o.kubeNode == "" && enginePost != kubePost {
			t.Errorf("%s: PostFilter's messages differ:\nkube-scheduler: %s\nthe engine:     %s", tc.name, kubePost, enginePost)
		}
		if o.kubeNode == "" && engineFilters != kubeFilters {
			t.Logf("%s: the filters' reasons are worded differently (informational):\nkube-scheduler: %s\nthe engine:     %s", tc.name, kubeFilters, engineFilters)
		}
	}
}

// splitFitMessage splits a FailedScheduling message into the filters'
// "0/N nodes are available: …." and what the PostFilter plugins added.
func splitFitMessage(msg string) (filters, postFilter string) {
	if i := strings.Index(msg, ". "); i >= 0 {
		return msg[:i+1], msg[i+2:]
	}
	return msg, ""
}

func victimNames(pods []*cluster.Pod, prefix string) []string {
	out := []string{}
	for _, p := range pods {
		out = append(out, strings.TrimPrefix(p.Name, prefix+"-"))
	}
	slices.Sort(out)
	return out
}

// runPreemptionCase builds the case's nodes and pods, asks the engine,
// lets kube-scheduler decide, and removes everything the case made.
func runPreemptionCase(ctx context.Context, cp *harness.ControlPlane, eng *engine.Engine, prefix string, tc preemptionCase) (*preemptionOutcome, error) {
	nodes := map[string]string{} // case name → node name
	for _, spec := range tc.nodes {
		short, tainted := strings.CutSuffix(spec, ":tainted")
		var taints []corev1.Taint
		if tainted {
			taints = []corev1.Taint{{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule}}
		}
		created, err := cp.CreateNodes(ctx, 1, harness.NodeSpec{NamePrefix: prefix + "-" + short, CPU: "4", Memory: "16Gi", Taints: taints})
		if err != nil {
			return nil, err
		}
		nodes[short] = created[0].Name
	}
	defer cleanUpPreemptionCase(cp, prefix, slices.Collect(maps.Values(nodes)))

	pods := cp.Client.CoreV1().Pods(preemptionNamespace)
	for _, rp := range tc.pods {
		p := preemptionPod(prefix+"-"+rp.name, prefix, rp.priority, rp.cpu)
		p.Spec.NodeName = nodes[rp.node]
		if rp.app != "" {
			p.Labels["app"] = prefix + "-" + rp.app
		}
		if _, err := pods.Create(ctx, p, metav1.CreateOptions{}); err != nil {
			return nil, err
		}
	}
	if _, err := cp.WaitForPodsRunning(ctx, preemptionNamespace, "case="+prefix, len(tc.pods)); err != nil {
		return nil, err
	}
	if tc.budget != "" {
		app := prefix + "-" + tc.budget
		if err := createBudget(ctx, cp, app, tc.budgetMin, tc.pods, tc.budget); err != nil {
			return nil, err
		}
	}

	preemptor := preemptionPod(prefix+"-incoming", prefix+"-incoming", tc.priority, tc.cpu)
	preemptor.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "rebalancer.test/decide"}}
	if tc.spread != "" {
		preemptor.Labels["app"] = prefix + "-" + tc.spread
		preemptor.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": prefix + "-" + tc.spread}},
		}}
	}
	if tc.affinity != "" {
		preemptor.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey:   corev1.LabelHostname,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": prefix + "-" + tc.affinity}},
			}},
		}}
	}
	if tc.antiAffinity != "" {
		preemptor.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey:   corev1.LabelHostname,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": prefix + "-" + tc.antiAffinity}},
			}},
		}}
	}
	if tc.never {
		// The Priority admission plugin takes the policy from the class.
		preemptor.Spec.PriorityClassName += "-never"
	}
	if _, err := pods.Create(ctx, preemptor, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	objs, err := kube.ReadObjects(ctx, cp.Client)
	if err != nil {
		return nil, err
	}
	snap, err := cluster.New(objs, time.Now())
	if err != nil {
		return nil, err
	}
	p := snap.Pod(preemptionNamespace + "/" + preemptor.Name)
	if p == nil {
		return nil, fmt.Errorf("the preemptor is not in the snapshot")
	}
	res := eng.Schedule(snap, p, engine.Options{})
	if res.Node != "" {
		return nil, fmt.Errorf("the engine fits the preemptor on %s: the case needs a pod that fits nowhere", res.Node)
	}
	o := &preemptionOutcome{engine: preemption.Decide(eng, snap, p, res)}

	ungate := []byte(`[{"op":"remove","path":"/spec/schedulingGates"}]`)
	if _, err := pods.Patch(ctx, preemptor.Name, types.JSONPatchType, ungate, metav1.PatchOptions{}); err != nil {
		return nil, err
	}
	var last string
	err = harness.WaitFor(ctx, 2*decisionTimeout, "kube-scheduler's verdict on "+preemptor.Name, func(ctx context.Context) (bool, error) {
		got, err := pods.Get(ctx, preemptor.Name, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		if got.Status.NominatedNodeName != "" {
			o.kubeNominated = got.Status.NominatedNodeName
		}
		if got.Spec.NodeName != "" {
			o.kubeNode = got.Spec.NodeName
			return true, nil
		}
		for _, c := range got.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonUnschedulable {
				last = c.Message
				// Until preemption has run, or when it nominated a node,
				// the message has no "preemption:" part.
				if strings.Contains(c.Message, " preemption: ") {
					o.kubeMessage = c.Message
					return true, nil
				}
			}
		}
		return false, nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w (last seen: %s)", err, last)
	}
	o.kubeVictims = []string{}
	for _, rp := range tc.pods {
		got, err := pods.Get(ctx, prefix+"-"+rp.name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			o.kubeVictims = append(o.kubeVictims, rp.name)
		case err != nil:
			return nil, err
		case got.DeletionTimestamp != nil:
			o.kubeVictims = append(o.kubeVictims, rp.name)
		}
	}
	slices.Sort(o.kubeVictims)
	for short, name := range nodes {
		if o.kubeNode == name {
			o.kubeNode = short
		}
		if o.kubeNominated == name {
			o.kubeNominated = short
		}
		if o.engine.Node == name {
			o.engine.Node = short
		}
	}
	return o, nil
}

// preemptionPod is a pod of a case asking for cpu at a priority.
func preemptionPod(name, caseLabel string, priority int32, cpu string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: preemptionNamespace,
			Labels: map[string]string{"case": caseLabel}},
		Spec: corev1.PodSpec{
			PriorityClassName: priorityClass(priority),
			Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:1",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("1Gi")}}}},
			TerminationGracePeriodSeconds: ptr.To[int64](0),
		},
	}
}

// createBudget creates a budget over app and waits until the disruption
// controller counts all its pods.
func createBudget(ctx context.Context, cp *harness.ControlPlane, app string, minAvailable int, pods []runningPod, short string) error {
	covered := 0
	for _, rp := range pods {
		if rp.app == short {
			covered++
		}
	}
	min := intstr.FromInt(minAvailable)
	if _, err := cp.CreatePDB(ctx, harness.PDBSpec{Name: app, Namespace: preemptionNamespace,
		Selector: map[string]string{"app": app}, MinAvailable: &min}); err != nil {
		return err
	}
	return harness.WaitFor(ctx, time.Minute, "budget "+app+" counting its pods", func(ctx context.Context) (bool, error) {
		pdb, err := cp.Client.PolicyV1().PodDisruptionBudgets(preemptionNamespace).Get(ctx, app, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		return pdb.Status.ObservedGeneration == pdb.Generation && int(pdb.Status.CurrentHealthy) == covered &&
			int(pdb.Status.DisruptionsAllowed) == max(covered-minAvailable, 0), nil
	})
}

// cleanUpPreemptionCase deletes the case's pods, budgets and nodes and
// waits until they are gone, so that the next case meets none of them.
func cleanUpPreemptionCase(cp *harness.ControlPlane, prefix string, nodes []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pods := cp.Client.CoreV1().Pods(preemptionNamespace)
	zero := metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}
	for _, sel := range []string{"case=" + prefix, "case=" + prefix + "-incoming"} {
		_ = pods.DeleteCollection(ctx, zero, metav1.ListOptions{LabelSelector: sel})
	}
	pdbs, err := cp.Client.PolicyV1().PodDisruptionBudgets(preemptionNamespace).List(ctx, metav1.ListOptions{})
	if err == nil {
		for _, pdb := range pdbs.Items {
			_ = cp.Client.PolicyV1().PodDisruptionBudgets(preemptionNamespace).Delete(ctx, pdb.Name, metav1.DeleteOptions{})
		}
	}
	for _, n := range nodes {
		_ = cp.Client.CoreV1().Nodes().Delete(ctx, n, metav1.DeleteOptions{})
	}
	_ = harness.WaitFor(ctx, time.Minute, "case "+prefix+" cleaned up", func(ctx context.Context) (bool, error) {
		list, err := pods.List(ctx, metav1.ListOptions{})
		if err != nil || len(list.Items) > 0 {
			return false, nil
		}
		for _, n := range nodes {
			if _, err := cp.Client.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return false, nil
			}
		}
		return true, nil
	})
}
