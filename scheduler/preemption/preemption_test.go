package preemption

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/defaultpreemption"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
	"github.com/kube-rebalancer/rebalancer/scheduler/schedulertest"
)

// running is a bound pod of the given priority asking for cpu, started
// startedAgo before the snapshot.
func running(name, node string, priority int32, cpu string, startedAgo time.Duration) *ct.PodBuilder {
	return ct.Pod("default", name).On(node).Priority(priority).Requests(cpu, "1Gi").Edit(func(p *corev1.Pod) {
		p.Status.StartTime = &metav1.Time{Time: ct.Now.Add(-startedAgo)}
	})
}

// preemptor is the pending pod "incoming" of the given priority asking for
// cpu.
func preemptor(priority int32, cpu string) *ct.PodBuilder {
	return ct.Pod("default", "incoming").Pending().Priority(priority).Requests(cpu, "1Gi")
}

// nominated is a pending pod of the given priority asking for cpu, that a
// preemption nominated to node.
func nominated(name, node string, priority int32, cpu string) *ct.PodBuilder {
	return ct.Pod("default", name).Pending().Priority(priority).Requests(cpu, "1Gi").Edit(func(p *corev1.Pod) {
		p.Status.NominatedNodeName = node
	})
}

func keys(pods []*cluster.Pod) []string {
	out := []string{}
	for _, p := range pods {
		out = append(out, p.Key)
	}
	return out
}

func TestPreempt(t *testing.T) {
	never := corev1.PreemptNever
	cases := []struct {
		name        string
		objs        []any
		node        string
		victims     []string
		violations  int
		notEligible string
		message     string
	}{
		{
			name: "a high-priority pod preempts the lower-priority pod that started last",
			objs: []any{ct.Node("a"),
				running("old", "a", 1, "2", time.Hour), running("new", "a", 1, "2", time.Minute),
				preemptor(100, "2")},
			node: "a", victims: []string{"default/new"},
			message: "0/1 nodes are available: 1 Insufficient cpu.",
		},
		{
			name: "every lower-priority pod goes when the pod needs the whole node, most important first",
			objs: []any{ct.Node("a"),
				running("low", "a", 1, "2", time.Hour), running("mid", "a", 5, "2", time.Hour),
				preemptor(100, "4")},
			node: "a", victims: []string{"default/mid", "default/low"},
			message: "0/1 nodes are available: 1 Insufficient cpu.",
		},
		{
			name: "pods of equal or higher priority are never victims",
			objs: []any{ct.Node("a"),
				running("same", "a", 100, "2", time.Hour), running("higher", "a", 200, "2", time.Hour),
				preemptor(100, "2")},
			message: "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
		},
		{
			name: "removing every lower-priority pod is not enough",
			objs: []any{ct.Node("a"),
				running("low", "a", 1, "1", time.Hour), running("high", "a", 200, "3", time.Hour),
				preemptor(100, "2")},
			message: "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Insufficient cpu.",
		},
		{
			name: "preemptionPolicy Never is not eligible",
			objs: []any{ct.Node("a"),
				running("low", "a", 1, "4", time.Hour),
				preemptor(100, "2").Edit(func(p *corev1.Pod) { p.Spec.PreemptionPolicy = &never })},
			notEligible: "not eligible due to preemptionPolicy=Never.",
			message:     "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never.",
		},
		{
			name: "nodes that fail for reasons preemption cannot resolve are skipped",
			objs: []any{ct.Node("a").Taint("dedicated", "db", corev1.TaintEffectNoSchedule), ct.Node("b").Cordoned(), ct.Node("c").CPU("1"),
				running("a-low", "a", 1, "4", time.Hour), running("b-low", "b", 1, "4", time.Hour), running("c-low", "c", 1, "1", time.Hour),
				preemptor(100, "2")},
			message: "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: db}, 1 node(s) were unschedulable. " +
				"no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
		},
		{
			name: "a node where preemption cannot help is counted apart from one without victims",
			objs: []any{ct.Node("a").Taint("dedicated", "db", corev1.TaintEffectNoSchedule), ct.Node("b"),
				running("a-low", "a", 1, "4", time.Hour), running("b-high", "b", 200, "4", time.Hour),
				preemptor(100, "2")},
			message: "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: db}. " +
				"no new claims to deallocate, preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.",
		},
		{
			name: "victims protected by a PodDisruptionBudget are reprieved first",
			objs: []any{ct.Node("a"), ct.PDB("default", "db", 0),
				running("db-0", "a", 1, "2", time.Hour).Label("app", "db"), running("batch", "a", 5, "2", time.Hour),
				preemptor(100, "2")},
			node: "a", victims: []string{"default/batch"},
			message: "0/1 nodes are available: 1 Insufficient cpu.",
		},
		{
			name: "a PodDisruptionBudget is violated when nothing else makes room",
			objs: []any{ct.Node("a"), ct.PDB("default", "db", 0),
				running("db-0", "a", 1, "4", time.Hour).Label("app", "db"),
				preemptor(100, "2")},
			node: "a", victims: []string{"default/db-0"}, violations: 1,
			message: "0/1 nodes are available: 1 Insufficient cpu.",
		},
		{
			name: "a budget that allows one disruption lets the first of two pods go",
			objs: []any{ct.Node("a"), ct.PDB("default", "db", 1),
				running("db-0", "a", 1, "2", time.Hour).Label("app", "db"), running("db-1", "a", 1, "2", 2*time.Hour).Label("app", "db"),
				preemptor(100, "4")},
			node: "a", victims: []string{"default/db-1", "default/db-0"}, violations: 1,
			message: "0/1 nodes are available: 1 Insufficient cpu.",
		},
		{
			name: "tie-break 1: the node with fewer PDB violations",
			objs: []any{ct.Node("a"), ct.Node("b"), ct.PDB("default", "db", 0),
				running("a-db", "a", 1, "4", time.Hour).Label("app", "db"), running("b-web", "b", 50, "4", time.Hour),
				preemptor(100, "2")},
			node: "b", victims: []string{"default/b-web"},
			message: "0/2 nodes are available: 2 Insufficient cpu.",
		},
		{
			name: "tie-break 2: the node whose most important victim has the lowest priority",
			objs: []any{ct.Node("a"), ct.Node("b"),
				running("a-5", "a", 5, "4", time.Hour), running("b-3", "b", 3, "4", time.Hour),
				preemptor(100, "2")},
			node: "b", victims: []string{"default/b-3"},
			message: "0/2 nodes are available: 2 Insufficient cpu.",
		},
		{
			name: "tie-break 3: the node with the lowest sum of victims' priorities",
			objs: []any{ct.Node("a"), ct.Node("b"),
				running("a-3", "a", 3, "2", time.Hour), running("a-3b", "a", 3, "2", time.Hour),
				running("b-3", "b", 3, "2", time.Hour), running("b-2", "b", 2, "2", time.Hour),
				preemptor(100, "4")},
			node: "b", victims: []string{"default/b-3", "default/b-2"},
			message: "0/2 nodes are available: 2 Insufficient cpu.",
		},
		{
			name: "tie-break 5: the node whose most important victims started last",
			objs: []any{ct.Node("a"), ct.Node("b"),
				running("a-old", "a", 3, "4", 2*time.Hour), running("b-new", "b", 3, "4", time.Minute),
				preemptor(100, "2")},
			node: "b", victims: []string{"default/b-new"},
			message: "0/2 nodes are available: 2 Insufficient cpu.",
		},
		{
			name: "still tied: the first node by name",
			objs: []any{ct.Node("b"), ct.Node("a"),
				running("a-3", "a", 3, "4", time.Hour), running("b-3", "b", 3, "4", time.Hour),
				preemptor(100, "2")},
			node: "a", victims: []string{"default/a-3"},
			message: "0/2 nodes are available: 2 Insufficient cpu.",
		},
		{
			name: "a pod that already preempted waits while its victim terminates on the nominated node",
			objs: []any{ct.Node("a"), ct.Node("b"),
				running("victim", "a", 1, "2", time.Hour).Terminating().Edit(func(p *corev1.Pod) {
					p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget,
						Status: corev1.ConditionTrue, Reason: corev1.PodReasonPreemptionByScheduler})
				}),
				running("a-other", "a", 1, "2", time.Hour), running("b-low", "b", 1, "4", time.Hour),
				preemptor(100, "4").Edit(func(p *corev1.Pod) { p.Status.NominatedNodeName = "a" })},
			notEligible: "not eligible due to a terminating pod on the nominated node.",
			message:     "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to a terminating pod on the nominated node.",
		},
		{
			name: "a pod being deleted for another reason does not hold the preemptor back",
			objs: []any{ct.Node("a"),
				running("leaving", "a", 1, "2", time.Hour).Terminating(), running("low", "a", 1, "2", time.Hour),
				preemptor(100, "4").Edit(func(p *corev1.Pod) { p.Status.NominatedNodeName = "a" })},
			node: "a", victims: []string{"default/leaving", "default/low"},
			message: "0/1 nodes are available: 1 Insufficient cpu.",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := ct.Snapshot(t, tc.objs...)
			e := schedulertest.DefaultEngine(t)
			pod := schedulertest.Incoming(t, s)
			res := e.Schedule(s, pod, engine.Options{})
			if res.Node != "" {
				t.Fatalf("the pod fits on %s; the case needs a pod that fits nowhere", res.Node)
			}
			before := requested(s)
			got := Decide(e, s, pod, res)
			if got.Node != tc.node || !slices.Equal(keys(got.Victims), orEmpty(tc.victims)) || got.PDBViolations != tc.violations {
				t.Errorf("Decide chose node %q, victims %v, %d PDB violations; want %q, %v, %d",
					got.Node, keys(got.Victims), got.PDBViolations, tc.node, orEmpty(tc.victims), tc.violations)
			}
			if got.NotEligible != tc.notEligible {
				t.Errorf("NotEligible = %q, want %q", got.NotEligible, tc.notEligible)
			}
			if got.Message != tc.message {
				t.Errorf("message:\n got %q\nwant %q", got.Message, tc.message)
			}
			if after := requested(s); !slices.Equal(before, after) {
				t.Errorf("Preempt changed the snapshot: requested CPU per node %v, then %v", before, after)
			}
		})
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// requested lists each node's requested CPU and pod count.
func requested(s *cluster.Snapshot) []int64 {
	var out []int64
	for _, n := range s.Nodes() {
		out = append(out, n.Requested.MilliCPU, n.Requested.Pods)
	}
	return out
}

func TestPreemptWithoutDefaultPreemption(t *testing.T) {
	s := ct.Snapshot(t, ct.Node("a"), running("low", "a", 1, "4", time.Hour), preemptor(100, "2"))
	e, err := engine.New(profile.Profile{SchedulerName: "no-preemption", Plugins: &configv1.Plugins{
		PostFilter: configv1.PluginSet{Disabled: []configv1.Plugin{{Name: defaultpreemption.Name}}}}})
	if err != nil {
		t.Fatal(err)
	}
	pod := schedulertest.Incoming(t, s)
	res := e.Schedule(s, pod, engine.Options{})
	got := Decide(e, s, pod, res)
	// DynamicResources' PostFilter still runs, and says so.
	if got.Node != "" || got.Reason != "" || got.Message != "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate" {
		t.Errorf("a profile without DefaultPreemption preempted on %q, reason %q, with message %q; want nothing, and no preemption part in the message", got.Node, got.Reason, got.Message)
	}
}

func TestPreemptCandidateSampling(t *testing.T) {
	// 3 potential nodes and minCandidateNodesAbsolute 1: the dry run stops
	// at the first candidate without PDB violations, which the pod's name
	// decides; every run gives the same one, among the three.
	s := ct.Snapshot(t, ct.Node("a"), ct.Node("b"), ct.Node("c"),
		running("a-1", "a", 1, "4", time.Hour), running("b-3", "b", 3, "4", time.Hour), running("c-2", "c", 2, "4", time.Hour),
		preemptor(100, "2"))
	profile := profile.DefaultProfile()
	if err := profile.SetArgs(defaultpreemption.Name, configv1.DefaultPreemptionArgs{
		MinCandidateNodesPercentage: new(int32(0)), MinCandidateNodesAbsolute: new(int32(1))}); err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(profile)
	if err != nil {
		t.Fatal(err)
	}
	pod := schedulertest.Incoming(t, s)
	res := e.Schedule(s, pod, engine.Options{})
	first := Decide(e, s, pod, res)
	offset := engine.SearchStart(pod, 3)
	if want := []string{"a", "b", "c"}[offset]; first.Node != want {
		t.Errorf("with one candidate wanted, Decide chose %q; want %q, the first node from the pod's offset", first.Node, want)
	}
	if all := Decide(schedulertest.DefaultEngine(t), s, pod, res); all.Node != "a" {
		t.Errorf("with the default args, Decide chose %q; want a, whose victim has the lowest priority", all.Node)
	}
}

func TestDefaultPreemptionArgs(t *testing.T) {
	cases := []struct {
		args string
		err  string
	}{
		{`{"minCandidateNodesPercentage": 20, "minCandidateNodesAbsolute": 10}`, ""},
		{`{"minCandidateNodesPercentage": 101}`, "pluginConfig[0].args.minCandidateNodesPercentage: 101 is not in [0, 100]"},
		{`{"minCandidateNodesAbsolute": -1}`, "pluginConfig[0].args.minCandidateNodesAbsolute: -1 is negative"},
		{`{"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0}`, "pluginConfig[0].args.minCandidateNodesPercentage: cannot be zero at the same time as minCandidateNodesAbsolute"},
	}
	for _, tc := range cases {
		_, err := defaultpreemption.Args([]byte(tc.args), "pluginConfig[0].args")
		if got := errString(err); got != tc.err {
			t.Errorf("%s: error %q, want %q", tc.args, got, tc.err)
		}
	}
	a := preemptionArgs{percentage: 10, absolute: 100}
	for _, c := range []struct{ nodes, want int }{{50, 50}, {500, 100}, {5000, 500}} {
		if got := a.numCandidates(c.nodes); got != c.want {
			t.Errorf("numCandidates(%d) = %d, want %d", c.nodes, got, c.want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestPreemptLowerPriorityNominationsAreCleared(t *testing.T) {
	s := ct.Snapshot(t, ct.Node("a"),
		running("low", "a", 1, "4", time.Hour),
		ct.Pod("default", "waiting").Pending().Priority(10).Requests("1", "1Gi").Edit(func(p *corev1.Pod) { p.Status.NominatedNodeName = "a" }),
		preemptor(100, "2"))
	e := schedulertest.DefaultEngine(t)
	pod := schedulertest.Incoming(t, s)
	got := Decide(e, s, pod, e.Schedule(s, pod, engine.Options{}))
	if got.Node != "a" || !slices.Equal(keys(got.LoseNomination), []string{"default/waiting"}) {
		t.Errorf("Decide chose %q and cleared the nominations of %v; want a and default/waiting", got.Node, keys(got.LoseNomination))
	}
}

// TestConcurrentPreemptionsAgree runs Preempt from several goroutines on
// one snapshot, beside Schedule with nominated pods (under -race this checks
// that neither writes the snapshot), and checks every answer against the
// first.
func TestConcurrentPreemptionsAgree(t *testing.T) {
	s := ct.Snapshot(t, ct.Node("a"), ct.Node("b"), ct.PDB("default", "db", 0),
		running("a-db", "a", 1, "2", time.Hour).Label("app", "db"), running("a-batch", "a", 5, "2", time.Hour),
		running("b-web", "b", 50, "3", time.Hour), nominated("waiting", "b", 200, "1"),
		preemptor(100, "2"))
	e := schedulertest.DefaultEngine(t)
	pod := schedulertest.Incoming(t, s)
	res := e.Schedule(s, pod, engine.Options{})
	want := Decide(e, s, pod, res)
	if want.Node != "a" || !slices.Equal(keys(want.Victims), []string{"default/a-batch"}) {
		t.Fatalf("Decide chose %q, victims %v; want a, [default/a-batch]", want.Node, keys(want.Victims))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for range 8 {
		wg.Go(func() {
			for range 10 {
				if r := e.Schedule(s, pod, engine.Options{}); r.Message != res.Message {
					errs <- fmt.Sprintf("Schedule said %q, then %q", res.Message, r.Message)
				}
				got := Decide(e, s, pod, res)
				if got.Node != want.Node || !slices.Equal(keys(got.Victims), keys(want.Victims)) || got.Message != want.Message {
					errs <- fmt.Sprintf("Decide chose %q %v %q, then %q %v %q", want.Node, keys(want.Victims), want.Message, got.Node, keys(got.Victims), got.Message)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
