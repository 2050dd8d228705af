package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/internal/inputfile"
	"github.com/kube-rebalancer/rebalancer/planner"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/report"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/nodename"
	"github.com/kube-rebalancer/rebalancer/scheduler/preemption"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
	"github.com/kube-rebalancer/rebalancer/strategies/defragment"
)

func newPlaceCommand(s *settings) *cobra.Command {
	var (
		snapshot, schedulerConfig, schedulerName, output, policyFile string
		kubeOpts                                                     = kubeFlags{qps: 20, burst: 30}
	)
	c := &cobra.Command{
		Use:   "place POD_FILE",
		Short: "Explain where a pod would be scheduled, and why not elsewhere",
		Long: `Run the scheduler engine on one pod and explain the decision: for each node,
whether it is feasible or the first filter it fails and why; for each feasible
node, the score of each plugin and the total; and the chosen node. A pod that
fits nowhere gets kube-scheduler's message, e.g.
"0/6 nodes are available: 1 node(s) were unschedulable, 5 Insufficient cpu."
and what kube-scheduler's preemption would do: the node it would take by
deleting pods of lower priority, and which; or why it cannot help, or that
the pod's preemptionPolicy: Never does not allow it; and which moves of
running pods would make room for it on one node, as DefragmentForPendingPods
would plan them: with its default arguments and the default evictable
settings, or with those of --policy and its limits.

POD_FILE holds a Pod, or a Deployment, ReplicaSet, StatefulSet, DaemonSet or
Job whose pod template is placed. A pod of the same namespace and name already
in the cluster is taken off its node first: the question is where it would go
now. The cluster comes from --snapshot, or from the API server.

The pod is placed as the API server would create it: a container's requests
left out default to its limits, a hostNetwork pod's ports are bound on the
node, and the RuntimeClass it names (from the cluster, or from the dump when
it holds runtimeclasses) adds its overhead, nodeSelector and tolerations. The
output lists the defaults applied.`,
		Example: `  # Why is my pod Pending?
  kubectl get pod web-7d9f-abcde -o yaml > pod.yaml
  rebalancer place --kubeconfig ~/.kube/config pod.yaml

  # Where would a new replica go, offline?
  rebalancer place --snapshot examples/cluster.yaml deployment.yaml -o json`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if output != report.Table && output != report.JSON {
				return fmt.Errorf("--output %q is not one of table, json", output)
			}
			pod, err := readPodFile(args[0])
			if err != nil {
				return err
			}
			var pol *policy.Policy
			if policyFile != "" {
				if pol, err = loadPolicy(policyFile); err != nil {
					return err
				}
			}
			eng, err := engineFor(schedulerConfig, schedulerName, pod.Spec.SchedulerName, s.plugins)
			if err != nil {
				return err
			}
			var objs cluster.Objects
			if snapshot != "" {
				var ignored map[string]int
				if objs, ignored, err = cluster.ReadFile(snapshot); err != nil {
					return snapshotError(snapshot, err)
				}
				if err := checkHasNodes(snapshot, objs, ignored); err != nil {
					return err
				}
			} else {
				client, _, err := kubeOpts.client(s.userAgent("rebalancer-place"))
				if err != nil {
					return err
				}
				ctx, cancel := context.WithTimeout(c.Context(), 2*time.Minute)
				defer cancel()
				if objs, err = kube.ReadObjects(ctx, client); err != nil {
					return runtimeErr(fmt.Errorf("reading the cluster: %w", err))
				}
				if name := pod.Spec.RuntimeClassName; name != nil && *name != "" {
					rc, err := client.NodeV1().RuntimeClasses().Get(ctx, *name, metav1.GetOptions{})
					switch {
					case err == nil:
						objs.RuntimeClasses = append(objs.RuntimeClasses, *rc)
					case !apierrors.IsNotFound(err):
						return runtimeErr(fmt.Errorf("reading RuntimeClass %s: %w", *name, err))
					}
				}
			}
			res, err := place(objs, pod, eng, pol)
			if err != nil {
				return err
			}
			if output == report.JSON {
				enc := json.NewEncoder(c.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			return printPlacement(c.OutOrStdout(), pod, res)
		},
	}
	c.Flags().StringVar(&snapshot, "snapshot", "", "cluster dump to place the pod in (default: read the cluster from the API server)")
	c.Flags().StringVar(&kubeOpts.kubeconfig, "kubeconfig", "", "kubeconfig file, when no --snapshot is given (default: $KUBECONFIG, ~/.kube/config, or in-cluster)")
	c.Flags().StringVar(&kubeOpts.context, "context", "", "kubeconfig context to use")
	c.Flags().StringVar(&schedulerConfig, "scheduler-config", "", "KubeSchedulerConfiguration file whose profile to simulate (default: kube-scheduler's default profile)")
	c.Flags().StringVar(&schedulerName, "scheduler-name", "", "profile to use from --scheduler-config (default: the pod's spec.schedulerName, else the first profile)")
	c.Flags().StringVar(&policyFile, "policy", "", "policy whose DefragmentForPendingPods arguments, evictable settings and limits say which moves may make room for a pod that fits nowhere (default: the strategy's default arguments and the default evictable settings)")
	c.Flags().StringVarP(&output, "output", "o", report.Table, "output format: table, json")
	return c
}

// engineFor builds the engine of a profile of the file: the one named by
// --scheduler-name, else the one of the pod's own spec.schedulerName, else
// the first; with no file, kube-scheduler's default profile. plugins are the
// out-of-tree plugins the profile may enable.
func engineFor(file, name, podScheduler string, plugins framework.Registry) (*engine.Engine, error) {
	if file == "" {
		return engine.New(profile.DefaultProfile(), plugins)
	}
	profiles, err := profile.ReadProfiles(file, plugins)
	if err != nil {
		return nil, fileError("--scheduler-config", file, err)
	}
	p := profiles[0]
	if name != "" {
		var ok bool
		if p, ok = profile.ProfileByName(profiles, name); !ok {
			return nil, fmt.Errorf("%s: no profile with schedulerName %q", file, name)
		}
	} else if q, ok := profile.ProfileByName(profiles, podScheduler); ok && podScheduler != "" {
		p = q
	}
	e, err := engine.New(p, plugins)
	if err != nil {
		return nil, err
	}
	// The scheduler calls the file's extenders: so does its simulation.
	if _, err := callExtenders(e); err != nil {
		return nil, err
	}
	return e, nil
}

// placement is place's answer: the engine's, and the defaults the API
// server would have given the pod.
type placement struct {
	engine.Result
	// Defaults lists, one sentence each, the defaults applied to the pod
	// before placing it (cluster.DefaultPod).
	Defaults []string `json:"defaults,omitempty"`
	// Permit is the verdict of the profile's Permit plugins on the chosen
	// node; absent without any.
	Permit *engine.Permit `json:"permit,omitempty"`
	// Preemption, for a pod that fits nowhere under a profile that runs
	// DefaultPreemption, is what kube-scheduler's preemption would do.
	Preemption *placePreemption `json:"preemption,omitempty"`
	// Defragment, for a pod that fits nowhere, is what
	// DefragmentForPendingPods would do for it: the moves that make room
	// on one node, or why there are none.
	Defragment *placeDefragment `json:"defragment,omitempty"`
	// NotSimulated lists, one sentence each, what of the pod the decision
	// did not take into account, so that a node is never chosen silently
	// past it.
	NotSimulated []string `json:"notSimulated,omitempty"`
}

// notSimulated says what of the pod the engine does not simulate.
func notSimulated(p *corev1.Pod) []string {
	if len(p.Spec.ResourceClaims) == 0 {
		return nil
	}
	names := make([]string, len(p.Spec.ResourceClaims))
	for i, c := range p.Spec.ResourceClaims {
		names[i] = c.Name
	}
	return []string{fmt.Sprintf("spec.resourceClaims (%s): the devices of DRA claims are not simulated, "+
		"so the node was chosen by everything else and may have no device to give", strings.Join(names, ", "))}
}

// placePreemption explains preemption for a pod that fits nowhere: the
// node it would be nominated to and the pods deleted there, or why there
// is none.
type placePreemption struct {
	// Allowed is false when the pod may not preempt at all
	// (preemptionPolicy: Never); Reason says why.
	Allowed bool `json:"allowed"`
	// Node and Victims ("namespace/name", most important first): where the
	// pod would go once the victims are deleted.
	Node          string   `json:"node,omitempty"`
	Victims       []string `json:"victims,omitempty"`
	PDBViolations int      `json:"pdbViolations,omitempty"`
	// Reason says why no node was found: kube-scheduler's words after
	// "preemption: ".
	Reason string `json:"reason,omitempty"`
	// Error is the error of an extender's preemptVerb that ended
	// preemption (Reason too).
	Error string `json:"error,omitempty"`
	// Message is kube-scheduler's whole FailedScheduling message, the
	// preemption part included.
	Message string `json:"message"`
}

// explainPreemption runs the engine's preemption for a pod that fits
// nowhere; nil when the profile does not preempt.
func explainPreemption(eng *engine.Engine, snap *cluster.Snapshot, p *cluster.Pod, res engine.Result) *placePreemption {
	pre := preemption.Decide(eng, snap, p, res)
	if pre.Node == "" && pre.Reason == "" {
		return nil
	}
	out := &placePreemption{Allowed: pre.NotEligible == "", Node: pre.Node, PDBViolations: pre.PDBViolations, Message: pre.Message}
	for _, v := range pre.Victims {
		out.Victims = append(out.Victims, v.Key)
	}
	out.Reason = pre.Reason
	out.Error = pre.Error
	return out
}

// placeDefragment says which moves of running pods would make room for a
// pod that fits nowhere.
type placeDefragment struct {
	// Node is where the pod would go once the moves are made; empty when
	// no moves make room, and Reason says why.
	Node   string      `json:"node,omitempty"`
	Moves  []placeMove `json:"moves,omitempty"`
	Reason string      `json:"reason,omitempty"`
}

// placeMove is one pod moved to make room: "namespace/name", from its
// node to the node its replacement would go to.
type placeMove struct {
	Pod  string `json:"pod"`
	From string `json:"from"`
	To   string `json:"to"`
}

// defragmentPolicy enables DefragmentForPendingPods alone, serving a pod as
// soon as it is found unschedulable; every other setting is the default,
// so the pods it may move are those a policy moves by default.
const defragmentPolicy = `apiVersion: rebalancer.dev/v1alpha1
kind: RebalancePolicy
strategies:
  DefragmentForPendingPods:
    minPendingAge: 0s
`

// defragmentOnly returns the policy of --policy with DefragmentForPendingPods
// alone, globally and in its overrides: its arguments (the default ones
// when the policy does not configure it), its evictable settings and its
// limits, with minPendingAge 0s, since the pod placed has only just been
// found unschedulable. Without --policy, defragmentPolicy.
func defragmentOnly(pol *policy.Policy) (*policy.Policy, error) {
	if pol == nil {
		return policy.Load([]byte(defragmentPolicy), "place")
	}
	doc, err := json.Marshal(pol.RebalancePolicy)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		return nil, err
	}
	keep := func(strategies any, global bool) any {
		all, _ := strategies.(map[string]any)
		args, ok := all[defragment.Name].(map[string]any)
		if !ok {
			if !global {
				return nil
			}
			args = map[string]any{}
		}
		args["minPendingAge"] = "0s"
		return map[string]any{defragment.Name: args}
	}
	m["strategies"] = keep(m["strategies"], true)
	overrides, _ := m["overrides"].([]any)
	for _, o := range overrides {
		if o, ok := o.(map[string]any); ok {
			if kept := keep(o["strategies"], false); kept != nil {
				o["strategies"] = kept
			} else {
				delete(o, "strategies")
			}
		}
	}
	// Windows say when a run may evict, not what a plan moves.
	delete(m, "disruptionWindows")
	if doc, err = json.Marshal(m); err != nil {
		return nil, err
	}
	return policy.Load(doc, pol.File)
}

// explainDefragment plans DefragmentForPendingPods on the snapshot, where p
// is pending and found unschedulable, and keeps what it did for p. Other
// pods found unschedulable are served too, in the strategy's order, as a
// run would serve them. pol is the policy of --policy, nil without.
func explainDefragment(eng engine.Placer, snap *cluster.Snapshot, p *cluster.Pod, pol *policy.Policy) (*placeDefragment, error) {
	pol, err := defragmentOnly(pol)
	if err != nil {
		return nil, err
	}
	plan := (&planner.Planner{Policy: pol, Placer: eng}).Plan(snap)
	out := &placeDefragment{}
	for _, pm := range plan.Placements {
		if pm.Pod != p.Key {
			continue
		}
		out.Node = pm.Node
		reason := fmt.Sprintf("makes room on %s for pending %s", pm.Node, p.Key)
		for _, m := range plan.Moves {
			if m.Strategy == defragment.Name && m.Reason == reason {
				out.Moves = append(out.Moves, placeMove{Pod: m.Pod, From: m.From, To: m.To})
			}
		}
		return out, nil
	}
	prefix := "pending " + p.Key + " "
	for _, n := range plan.Notes {
		if n.Strategy == defragment.Name && strings.HasPrefix(n.Text, prefix) {
			out.Reason = n.Text
			return out, nil
		}
	}
	switch {
	case len(p.Spec.SchedulingGates) > 0:
		out.Reason = fmt.Sprintf("pending %s is left alone: it has scheduling gates, and no scheduler tries it until they are removed", p.Key)
	case plan.Stopped != "":
		out.Reason = fmt.Sprintf("pending %s is left alone: the moves for other pending pods came first, and %s", p.Key, plan.Stopped)
	default:
		out.Reason = fmt.Sprintf("pending %s is left alone: the strategy does not serve it", p.Key)
	}
	return out, nil
}

// place adds the pod, unbound and defaulted as the API server would create
// it, to the cluster (replacing a pod of the same name) and schedules it with
// every node's detail. A pod that was bound is placed as its replacement
// would be, from scratch; one that names a node it was never bound to keeps
// the name, which kube-scheduler's NodeName filter holds it to.
//
// pol, the policy of --policy (nil without), gives the explanation of the
// moves that would make room its arguments, evictable settings and limits.
func place(objs cluster.Objects, pod *corev1.Pod, eng *engine.Engine, pol *policy.Policy) (placement, error) {
	pod = pod.DeepCopy()
	if !nodename.PinnedNodeName(pod) {
		pod.Spec.NodeName = ""
	}
	now := time.Now()
	// As kube-scheduler leaves a pod it found no node for, so that
	// DefragmentForPendingPods serves it.
	pod.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
		Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
		LastTransitionTime: metav1.NewTime(now),
	}}}
	defaults := cluster.DefaultPod(pod, objs.RuntimeClasses)
	kept := objs.Pods[:0]
	for _, p := range objs.Pods {
		if p.Namespace != pod.Namespace || p.Name != pod.Name {
			kept = append(kept, p)
		}
	}
	objs.Pods = append(kept, *pod)
	snap, err := cluster.New(objs, now)
	if err != nil {
		return placement{}, err
	}
	p := snap.Pod(pod.Namespace + "/" + pod.Name)
	// A pod that names a node is counted on it as it is loaded; it holds
	// nothing there until it is bound.
	snap.Remove(p)
	res := eng.Schedule(snap, p, engine.Options{Explain: true})
	out := placement{Result: res, Defaults: defaults, NotSimulated: notSimulated(p.Pod)}
	if res.Node != "" {
		out.Permit = eng.Permit(snap, p, res.Node)
	} else {
		out.Preemption = explainPreemption(eng, snap, p, res)
		if out.Defragment, err = explainDefragment(eng, snap, p, pol); err != nil {
			return placement{}, err
		}
	}
	return out, nil
}

// maxPodFileSize bounds the pod file of place: a pod or a workload is a few
// KiB.
const maxPodFileSize = inputfile.MiB

// readPodFile reads a Pod, or the pod template of a workload.
func readPodFile(path string) (*corev1.Pod, error) {
	data, err := inputfile.Read(path, maxPodFileSize)
	if err != nil {
		return nil, fileError("pod file", path, err)
	}
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(j, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var (
		meta     metav1.ObjectMeta
		template *corev1.PodTemplateSpec
	)
	switch o := obj.(type) {
	case *corev1.Pod:
		if o.Namespace == "" {
			o.Namespace = metav1.NamespaceDefault
		}
		return o, nil
	case *appsv1.Deployment:
		meta, template = o.ObjectMeta, &o.Spec.Template
	case *appsv1.ReplicaSet:
		meta, template = o.ObjectMeta, &o.Spec.Template
	case *appsv1.StatefulSet:
		meta, template = o.ObjectMeta, &o.Spec.Template
	case *appsv1.DaemonSet:
		meta, template = o.ObjectMeta, &o.Spec.Template
	case *batchv1.Job:
		meta, template = o.ObjectMeta, &o.Spec.Template
	default:
		return nil, fmt.Errorf("%s: a %T has no pod to place; give a Pod or a workload with a pod template", path, obj)
	}
	if meta.Namespace == "" {
		meta.Namespace = metav1.NamespaceDefault
	}
	p := &corev1.Pod{ObjectMeta: template.ObjectMeta, Spec: template.Spec}
	p.Namespace, p.Name = meta.Namespace, meta.Name+"-new"
	return p, nil
}

func printPlacement(out io.Writer, pod *corev1.Pod, res placement) error {
	if len(res.Defaults) > 0 {
		fmt.Fprintln(out, "DEFAULTS the API server gives the pod:")
		for _, d := range res.Defaults {
			fmt.Fprintf(out, "  %s\n", d)
		}
		fmt.Fprintln(out)
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	var plugins []string
	seen := map[string]bool{}
	for _, n := range res.Nodes {
		for p := range n.Scores {
			if !seen[p] {
				seen[p] = true
				plugins = append(plugins, p)
			}
		}
	}
	sort.Strings(plugins)
	fmt.Fprint(w, "NODE\tFEASIBLE\tSCORE\t")
	for _, p := range plugins {
		fmt.Fprintf(w, "%s\t", p)
	}
	fmt.Fprintln(w, "REASON")
	for _, n := range res.Nodes {
		mark := "no"
		if n.Feasible {
			mark = "yes"
		}
		score := "-"
		if n.Feasible {
			score = fmt.Sprint(n.Score)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t", n.Name, mark, score)
		for _, p := range plugins {
			if v, ok := n.Scores[p]; ok && n.Feasible {
				fmt.Fprintf(w, "%d\t", v)
			} else {
				fmt.Fprint(w, "-\t")
			}
		}
		reason := n.Reason
		if n.Plugin != "" && reason != "" {
			reason = n.Plugin + ": " + reason
		}
		fmt.Fprintln(w, reason)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	key := pod.Namespace + "/" + pod.Name
	if res.Node == "" {
		_, err := fmt.Fprintf(out, "\n%s fits nowhere: %s\n", key, res.Message)
		if err == nil && res.NominatedNode != "" {
			_, err = fmt.Fprintf(out, "nominated node: %s\n", res.NominatedNode)
		}
		if err == nil && res.Preemption != nil {
			_, err = fmt.Fprintln(out, preemptionLine(res.Preemption))
		}
		if err == nil && res.Defragment != nil {
			_, err = fmt.Fprintln(out, defragmentLine(res.Defragment))
		}
		return err
	}
	line := fmt.Sprintf("\n%s goes to %s (score %d)", key, res.Node, res.Score)
	if res.RunnerUp != "" {
		line += fmt.Sprintf("; runner-up %s (score %d)", res.RunnerUp, res.RunnerUpScore)
	}
	if _, err := fmt.Fprintln(out, line); err != nil {
		return err
	}
	for _, n := range res.NotSimulated {
		if _, err := fmt.Fprintf(out, "not simulated: %s\n", n); err != nil {
			return err
		}
	}
	if res.Permit == nil {
		return nil
	}
	return printPermit(out, res.Permit)
}

// printPermit says what the profile's Permit plugins answer on the chosen
// node: allowed, denied by a plugin and why, or the plugins the binding
// would wait for and how long at most.
func printPermit(out io.Writer, p *engine.Permit) error {
	var err error
	switch p.Verdict {
	case framework.PermitDeny:
		_, err = fmt.Fprintf(out, "permit: denied by %s: %s\n", p.Plugin, p.Message)
	case framework.PermitWait:
		names := make([]string, 0, len(p.Waiting))
		for name := range p.Waiting {
			names = append(names, name)
		}
		sort.Strings(names)
		for i, name := range names {
			names[i] = fmt.Sprintf("%s (at most %v)", name, p.Waiting[name].Duration)
		}
		_, err = fmt.Fprintf(out, "permit: the binding waits for %s\n", strings.Join(names, ", "))
	default:
		_, err = fmt.Fprintln(out, "permit: allowed")
	}
	return err
}

// defragmentLine says in one line which moves would make room.
func defragmentLine(d *placeDefragment) string {
	if d.Node == "" {
		return "by moving pods: " + d.Reason
	}
	moves := make([]string, len(d.Moves))
	for i, m := range d.Moves {
		moves[i] = fmt.Sprintf("%s from %s to %s", m.Pod, m.From, m.To)
	}
	return fmt.Sprintf("by moving pods it would go to %s, moving %s", d.Node, strings.Join(moves, ", "))
}

// preemptionLine says in one line what preemption would do.
func preemptionLine(p *placePreemption) string {
	switch {
	case !p.Allowed:
		return "preemption is not allowed: " + p.Reason
	case p.Error != "":
		return "preemption failed: " + p.Error
	case p.Node == "":
		return "preemption cannot help: " + p.Reason
	}
	line := fmt.Sprintf("by preemption it would go to %s, deleting %s", p.Node, strings.Join(p.Victims, ", "))
	if p.PDBViolations > 0 {
		line += fmt.Sprintf(" (%d against a PodDisruptionBudget)", p.PDBViolations)
	}
	return line
}
