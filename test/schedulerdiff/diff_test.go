package schedulerdiff

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

const (
	// defaultSeed fixes the pods of a run; SCHEDULERDIFF_SEED replays or
	// explores another sequence.
	defaultSeed uint64 = 20260517
	envSeed            = "SCHEDULERDIFF_SEED"
	podCount           = 120
	// decisionTimeout bounds the wait for kube-scheduler's verdict on one
	// pod; it takes well under a second, but the machine may be busy.
	decisionTimeout = time.Minute
)

// outcome is one pod's verdicts.
type outcome struct {
	spec *spec
	key  string
	// kubeNode is where kube-scheduler bound the pod; "" when it left the
	// pod Pending with kubeMessage.
	kubeNode    string
	kubeMessage string
	engine      engine.Result
	feasible    []string
	// problem is the disagreement, "" when the engine agrees.
	problem string
	// reasonNote says how the unschedulable reasons differ, if they do.
	reasonNote string
	// topScore: the engine scores kube-scheduler's node as high as its own
	// best (only meaningful for bound pods); scoreNote says by how much it
	// does not, plugin by plugin.
	topScore  bool
	scoreNote string
}

// TestEngineAgreesWithKubeScheduler places generated pods one at a time on
// a kwok cluster with kube-scheduler, asking the engine about each pod first
// on a snapshot of exactly the cluster kube-scheduler then sees. A pod
// kube-scheduler leaves Pending must be unschedulable for the engine; a pod
// it binds must be schedulable, and its node must be among the engine's
// feasible nodes. Bound pods stay, so that later pods meet earlier ones
// through anti-affinity, spreading, ports and capacity.
func TestEngineAgreesWithKubeScheduler(t *testing.T) {
	seed := defaultSeed
	if v := os.Getenv(envSeed); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", envSeed, v, err)
		}
		seed = s
	}
	t.Logf("seed %d (%s=%d replays this run)", seed, envSeed, seed)

	// The first run on a machine may build the component binaries.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Minute)
	defer cancel()
	cp, err := harness.Start(ctx, t, harness.Options{Scheduler: true})
	if err != nil {
		t.Fatalf("start control plane: %v", err)
	}
	if err := createNamespaces(ctx, cp); err != nil {
		t.Fatal(err)
	}
	if err := createRuntimeClasses(ctx, cp); err != nil {
		t.Fatal(err)
	}
	if err := createNodes(ctx, cp); err != nil {
		t.Fatal(err)
	}
	if err := createVolumes(ctx, cp); err != nil {
		t.Fatal(err)
	}
	provisioning, stopProvisioning := context.WithCancel(ctx)
	defer stopProvisioning()
	go provisionSelected(provisioning, cp)

	// At 100% every node is filtered, as kube-scheduler filters every node
	// of a cluster under 100 nodes: the feasible sets are comparable.
	profile := profile.DefaultProfile()
	profile.PercentageOfNodesToScore = ptr.To[int32](100)
	eng, err := engine.New(profile)
	if err != nil {
		t.Fatal(err)
	}

	gen := newGenerator(seed)
	var outcomes []*outcome
	start := time.Now()
	for i := range podCount {
		o, err := decide(ctx, cp, eng, gen.pod(i))
		if err != nil {
			t.Logf("%s", table(outcomes))
			t.Fatalf("pod %d: %v", i, err)
		}
		outcomes = append(outcomes, o)
	}
	// The pods with volumes come last, in a fixed order: each depends on
	// what the ones before it hold (a ReadWriteOncePod claim, a CSI
	// volume attached to a node).
	for i, s := range volumePods() {
		o, err := decide(ctx, cp, eng, s)
		if err != nil {
			t.Logf("%s", table(outcomes))
			t.Fatalf("volume pod %d: %v", i, err)
		}
		outcomes = append(outcomes, o)
	}
	t.Logf("%d pods decided in %s", len(outcomes), time.Since(start).Round(time.Millisecond))

	t.Logf("%s", table(outcomes))
	t.Logf("%s", coverage(outcomes))
	var bound, pending, top, notes int
	for _, o := range outcomes {
		if o.kubeNode != "" {
			bound++
			if o.topScore {
				top++
			}
		} else {
			pending++
			if o.reasonNote != "" {
				notes++
			}
		}
	}
	// Scores are not part of the comparison, only reported: kube-scheduler
	// breaks ties at random, so only a node the engine scores strictly below
	// its best shows that the two score differently.
	t.Logf("%d pods: %d bound, %d left Pending; %d Pending with other reasons; the engine's best score is kube-scheduler's node's for %d of %d bound pods",
		len(outcomes), bound, pending, notes, top, bound)
	if bound == 0 || pending == 0 {
		t.Errorf("the generated pods should both bind and stay Pending: %d bound, %d Pending", bound, pending)
	}
	for _, o := range outcomes {
		if o.problem != "" {
			t.Errorf("%s (%s): %s", o.key, strings.Join(o.spec.summary, " "), o.problem)
		}
	}
}

// decide creates the pod gated, asks the engine about it on a snapshot read
// from the API server, lets kube-scheduler decide, and compares. A pod
// kube-scheduler leaves Pending is deleted: kube-scheduler would retry it
// whenever the cluster changed and might bind it in the middle of a later
// pod's decision.
func decide(ctx context.Context, cp *harness.ControlPlane, eng *engine.Engine, s *spec) (*outcome, error) {
	pods := cp.Client.CoreV1().Pods(s.pod.Namespace)
	created, err := pods.Create(ctx, s.pod, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("create %s/%s (%s): %w", s.pod.Namespace, s.pod.Name, strings.Join(s.summary, " "), err)
	}
	o := &outcome{spec: s, key: created.Namespace + "/" + created.Name}

	objs, err := kube.ReadObjects(ctx, cp.Client)
	if err != nil {
		return nil, err
	}
	before := fingerprint(objs.Nodes, objs.Pods, o.key)
	snap, err := cluster.New(objs, time.Now())
	if err != nil {
		return nil, err
	}
	p := snap.Pod(o.key)
	if p == nil || p.Spec.NodeName != "" {
		return nil, fmt.Errorf("%s is not a pending pod of the snapshot", o.key)
	}
	o.engine = eng.Schedule(snap, p, engine.Options{Explain: true})
	for _, n := range o.engine.Nodes {
		if n.Feasible {
			o.feasible = append(o.feasible, n.Name)
		}
	}

	ungate := []byte(`[{"op":"remove","path":"/spec/schedulingGates"}]`)
	if _, err := pods.Patch(ctx, created.Name, types.JSONPatchType, ungate, metav1.PatchOptions{}); err != nil {
		return nil, fmt.Errorf("ungate %s: %w", o.key, err)
	}
	var last string
	err = harness.WaitFor(ctx, decisionTimeout, "kube-scheduler's verdict on "+o.key, func(ctx context.Context) (bool, error) {
		pod, err := pods.Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		if pod.Spec.NodeName != "" {
			o.kubeNode = pod.Spec.NodeName
			return true, nil
		}
		for _, c := range pod.Status.Conditions {
			if c.Type != corev1.PodScheduled {
				continue
			}
			last = c.Reason + ": " + c.Message
			switch c.Reason {
			case corev1.PodReasonUnschedulable:
				o.kubeMessage = c.Message
				return true, nil
			case corev1.PodReasonSchedulerError:
				return false, fmt.Errorf("kube-scheduler failed on %s: %s", o.key, c.Message)
			}
		}
		return false, nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w (last seen: %s)", err, last)
	}

	// Both sides must have judged the same cluster: no node or other pod
	// may have changed between the snapshot and kube-scheduler's verdict.
	nodeList, err := cp.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	podList, err := cp.Client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	if after := fingerprint(nodeList.Items, podList.Items, o.key); after != before {
		return nil, fmt.Errorf("the cluster changed while %s was decided, so the comparison would be unfair:\nbefore: %s\nafter:  %s", o.key, before, after)
	}

	if o.kubeNode == "" {
		if err := pods.Delete(ctx, created.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
			return nil, fmt.Errorf("delete %s: %w", o.key, err)
		}
		err := harness.WaitFor(ctx, decisionTimeout, o.key+" deleted", func(ctx context.Context) (bool, error) {
			_, err := pods.Get(ctx, created.Name, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
		if err != nil {
			return nil, err
		}
	}
	compare(o)
	return o, nil
}

// compare fills in the disagreement, if any, by the rule: Pending
// for kube-scheduler means no feasible node for the engine, bound means
// feasible, on kube-scheduler's node among others.
func compare(o *outcome) {
	res := o.engine
	if o.kubeNode == "" {
		if res.Feasible > 0 {
			o.problem = fmt.Sprintf("kube-scheduler left it Pending (%s) but the engine finds %d feasible node(s) %s and would choose %s",
				o.kubeMessage, res.Feasible, nodeSet3(o.feasible), res.Node)
			return
		}
		o.reasonNote = reasonsDiff(reasons(o.kubeMessage), reasons(res.Message))
		return
	}
	var onNode engine.NodeResult
	for _, n := range res.Nodes {
		if n.Name == o.kubeNode {
			onNode = n
		}
	}
	switch {
	case res.Feasible == 0:
		o.problem = fmt.Sprintf("kube-scheduler bound it to %s but the engine finds no feasible node: %s; on %s the engine's %s says %q",
			o.kubeNode, res.Message, o.kubeNode, onNode.Plugin, onNode.Reason)
	case !onNode.Feasible:
		o.problem = fmt.Sprintf("kube-scheduler bound it to %s, which the engine's %s rejects: %q; the engine's feasible nodes: %s",
			o.kubeNode, onNode.Plugin, onNode.Reason, nodeSet3(o.feasible))
	default:
		o.topScore = onNode.Score == res.Score
		if !o.topScore {
			var best engine.NodeResult
			for _, n := range res.Nodes {
				if n.Name == res.Node {
					best = n
				}
			}
			o.scoreNote = fmt.Sprintf("the engine scores kube-scheduler's %s %d %v, below its choice %s %d %v",
				onNode.Name, onNode.Score, onNode.Scores, best.Name, best.Score, best.Scores)
		}
	}
}

// fingerprint is what both schedulers' decisions depend on: every node's
// labels, taints, cordon and allocatable, and where every live pod other
// than the one being decided is bound. Pod status, which kwok keeps
// updating, is left out.
func fingerprint(nodes []corev1.Node, pods []corev1.Pod, skip string) string {
	var parts []string
	for _, n := range nodes {
		var taints []string
		for _, t := range n.Spec.Taints {
			taints = append(taints, t.ToString())
		}
		slices.Sort(taints)
		var alloc []string
		for _, name := range slices.Sorted(maps.Keys(n.Status.Allocatable)) {
			q := n.Status.Allocatable[name]
			alloc = append(alloc, string(name)+"="+q.String())
		}
		parts = append(parts, fmt.Sprintf("node %s unschedulable=%t taints=%v labels=%v allocatable=%v",
			n.Name, n.Spec.Unschedulable, taints, n.Labels, alloc))
	}
	for _, p := range pods {
		key := p.Namespace + "/" + p.Name
		if key == skip {
			continue
		}
		live := p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
		parts = append(parts, fmt.Sprintf("pod %s on %q live=%t", key, p.Spec.NodeName, live))
	}
	slices.Sort(parts)
	return strings.Join(parts, "; ")
}

// nodeSet3 writes node names without the common prefix, to keep the table
// readable.
func nodeSet3(names []string) string {
	short := make([]string, len(names))
	for i, n := range names {
		short[i] = strings.TrimPrefix(n, nodeSet+"-")
	}
	return "{" + strings.Join(short, " ") + "}"
}

// table is the per-pod record: what each pod asked for, where
// kube-scheduler put it, and what the engine found; then, for each pod
// left Pending or judged differently, both messages in full.
func table(outcomes []*outcome) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "\nPOD\tKUBE-SCHEDULER\tENGINE FEASIBLE\tENGINE CHOICE\tVERDICT\tCONSTRAINTS")
	for _, o := range outcomes {
		kube := o.kubeNode
		if kube == "" {
			kube = "Pending"
		}
		eng := o.engine.Node
		if eng == "" {
			eng = "none"
		}
		verdict := "agree"
		switch {
		case o.problem != "":
			verdict = "DISAGREE"
		case o.reasonNote != "":
			verdict = "agree, other reasons"
		case o.scoreNote != "":
			verdict = "agree, other scores"
		}
		fmt.Fprintf(w, "%s\t%s\t%d %s\t%s\t%s\t%s\n", o.key, kube, len(o.feasible), nodeSet3(o.feasible), eng, verdict, strings.Join(o.spec.summary, " "))
	}
	w.Flush()
	for _, o := range outcomes {
		if o.scoreNote != "" {
			fmt.Fprintf(&b, "%s\n  scores (informational): %s\n", o.key, o.scoreNote)
		}
		if o.kubeNode != "" && o.problem == "" {
			continue
		}
		fmt.Fprintf(&b, "%s\n  kube-scheduler: %s\n  engine:         %s\n", o.key, orNone(o.kubeMessage, "bound to "+o.kubeNode), orNone(o.engine.Message, "feasible "+nodeSet3(o.feasible)))
		if o.problem != "" {
			fmt.Fprintf(&b, "  DISAGREE: %s\n", o.problem)
		}
		if o.reasonNote != "" {
			fmt.Fprintf(&b, "  other reasons: %s\n", o.reasonNote)
		}
	}
	return b.String()
}

func orNone(s, instead string) string {
	if s == "" {
		return instead
	}
	return s
}

// coverage counts the pods of each constraint kind and how kube-scheduler
// decided them, to show that the run exercised what it claims to.
func coverage(outcomes []*outcome) string {
	type count struct{ bound, pending int }
	counts := map[string]*count{}
	for _, o := range outcomes {
		for _, k := range o.spec.kinds {
			c := counts[k]
			if c == nil {
				c = &count{}
				counts[k] = c
			}
			if o.kubeNode != "" {
				c.bound++
			} else {
				c.pending++
			}
		}
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "\nCONSTRAINT KIND\tPODS\tBOUND\tPENDING")
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		c := counts[k]
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\n", k, c.bound+c.pending, c.bound, c.pending)
	}
	w.Flush()
	return b.String()
}
