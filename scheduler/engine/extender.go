package engine

import (
	"fmt"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// Extender is a scheduler extender of a KubeSchedulerConfiguration as a
// decision calls it. The engine defines it and stays pure: the HTTP client
// that implements it lives at an edge (package extenderclient).
type Extender interface {
	// Name identifies the extender in messages: its urlPrefix.
	Name() string
	// IsInterested reports whether the extender wants the pod: with
	// managedResources, only a pod that requests or limits one of them.
	IsInterested(pod *corev1.Pod) bool
	// IsIgnorable says that the extender's errors are skipped instead of
	// failing the decision.
	IsIgnorable() bool
	// Weight multiplies the extender's prioritize scores.
	Weight() int64
	// NodeCacheCapable says that the extender is sent node names only.
	NodeCacheCapable() bool
	// Filter returns which of nodes the pod may go to; nodes it turns down
	// may have a reason in Failed or FailedAndUnresolvable. An extender
	// without a filterVerb passes every node.
	Filter(pod *cluster.Pod, nodes []*cluster.Node) (ExtenderFilterResult, error)
	// Prioritize returns the scores (0 to MaxExtenderScore) it gives
	// nodes, by node name; an extender without a prioritizeVerb gives none.
	Prioritize(pod *cluster.Pod, nodes []*cluster.Node) (map[string]int64, error)
	// SupportsPreemption says that the extender has a preemptVerb:
	// preemption asks it which candidates to keep.
	SupportsPreemption() bool
	// ProcessPreemption is the extender's preemptVerb: given the nodes
	// where deleting victims makes room for the pod, by node name, it
	// returns the nodes it keeps and the victims it chooses on each. Like
	// kube-scheduler's extenders it names victims by UID; the engine finds
	// them among the node's pods.
	ProcessPreemption(pod *cluster.Pod, candidates map[string]Victims) (map[string]MetaVictims, error)
}

// Victims are the pods preemption would delete on one node, most
// important first, and how many of those deletions a
// PodDisruptionBudget does not allow.
type Victims struct {
	Pods          []*cluster.Pod
	PDBViolations int
}

// MetaVictims are victims as an extender's preemptVerb returns them: by
// UID, with the PDB violations it counts.
type MetaVictims struct {
	UIDs          []types.UID
	PDBViolations int
}

// ExtenderFilterResult is what an extender's filter decided.
type ExtenderFilterResult struct {
	// Nodes names the nodes that passed.
	Nodes []string
	// Failed and FailedAndUnresolvable give, by node name, the extender's
	// reason for a node it turned down; the second wins over the first.
	Failed, FailedAndUnresolvable map[string]string
}

// MaxExtenderScore is the highest score an extender's prioritize gives: it
// is scaled to the plugins' 0..100 (kube-scheduler's MaxExtenderPriority).
const MaxExtenderScore = 10

// ExtenderBy is how a node an extender turned down names it, in
// NodeResult.Plugin: `extender "https://…"`.
func ExtenderBy(name string) string { return fmt.Sprintf("extender %q", name) }

// errReasonNotReturned explains, in `rebalancer place`, a node an
// extender dropped without a reason; kube-scheduler counts no reason for
// it in its message.
const errReasonNotReturned = "not among the nodes the extender's filter returned"

// SetExtenders makes the engine call exts in every decision, after its
// plugins, as kube-scheduler calls a configuration's extenders: those
// whose errors fail a decision first, the ignorable ones last, each group
// in configuration order. Call it before the engine's first decision.
func (e *Engine) SetExtenders(exts []Extender) {
	e.extenders = make([]Extender, 0, len(exts))
	for _, x := range exts {
		if !x.IsIgnorable() {
			e.extenders = append(e.extenders, x)
		}
	}
	for _, x := range exts {
		if x.IsIgnorable() {
			e.extenders = append(e.extenders, x)
		}
	}
}

// Extenders returns the extenders the engine calls, in the order it calls
// them.
func (e *Engine) Extenders() []Extender { return slices.Clone(e.extenders) }

// ManagesPod reports whether a pod requests or limits one of managed in
// any container or init container: kube-scheduler's test of an extender's
// interest in a pod. With no managed resources, every pod is of interest.
func ManagesPod(managed map[string]bool, pod *corev1.Pod) bool {
	if len(managed) == 0 {
		return true
	}
	for _, cs := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range cs {
			for r := range cs[i].Resources.Requests {
				if managed[string(r)] {
					return true
				}
			}
			for r := range cs[i].Resources.Limits {
				if managed[string(r)] {
					return true
				}
			}
		}
	}
	return false
}

// extenderVerdicts records, per node index, the extender that turned a
// node down and its reason ("" when it gave none).
type extenderVerdicts struct {
	by     map[int]string
	reason map[int]string
	// unresolvable are the nodes an extender returned in
	// FailedAndUnresolvable: preemption does not try them.
	unresolvable map[int]bool
	// scores are each prioritizing extender's scaled scores, parallel to
	// cycle.feasible, for Explain.
	scores map[string][]int64
}

// filterExtenders runs the engine's extenders on the feasible nodes, each
// on those the previous ones left, and keeps the survivors in c.feasible.
// An error of a non-ignorable extender fails the decision.
func (c *cycle) filterExtenders() error {
	for _, x := range c.e.extenders {
		if len(c.feasible) == 0 {
			return nil
		}
		if !x.IsInterested(c.Pod().Pod) {
			continue
		}
		nodes := make([]*cluster.Node, len(c.feasible))
		for k, i := range c.feasible {
			nodes[k] = c.Nodes()[i]
		}
		res, err := x.Filter(c.Pod(), nodes)
		if err != nil {
			if x.IsIgnorable() {
				logger.V(2).Info("Skipping an ignorable extender that failed", "extender", x.Name(), "pod", c.Pod().Key, "err", err)
				continue
			}
			return err
		}
		passed := make(map[string]bool, len(res.Nodes))
		for _, n := range res.Nodes {
			passed[n] = true
		}
		kept := c.feasible[:0]
		for _, i := range c.feasible {
			name := c.Nodes()[i].Name
			if passed[name] {
				kept = append(kept, i)
				continue
			}
			why, unresolvable := res.FailedAndUnresolvable[name]
			if !unresolvable {
				why = res.Failed[name]
			}
			c.rejectByExtender(int(i), x.Name(), why, unresolvable)
		}
		c.feasible = kept
	}
	return nil
}

func (c *cycle) rejectByExtender(i int, name, why string, unresolvable bool) {
	if c.ext == nil {
		c.ext = &extenderVerdicts{by: map[int]string{}, reason: map[int]string{}, unresolvable: map[int]bool{}}
	}
	c.verdict[i] = verdictExtender
	c.ext.by[i] = ExtenderBy(name)
	c.ext.reason[i] = why
	if unresolvable {
		c.ext.unresolvable[i] = true
	}
}

// extenderReasons is reasonsOf for a node an extender turned down: its
// reason is counted in the "0/N nodes are available" message as a
// plugin's; a node dropped without one counts nowhere, as in
// kube-scheduler.
func (c *cycle) extenderReasons(i int) (string, []string) {
	if why := c.ext.reason[i]; why != "" {
		return c.ext.by[i], []string{why}
	}
	return c.ext.by[i], nil
}

// prioritizeExtenders adds the interested extenders' scores, scaled from
// 0..MaxExtenderScore to the plugins' 0..100 and multiplied by their
// weights, to totals (parallel to c.feasible). The extenders are called
// at once; one that fails adds nothing, as in kube-scheduler.
func (c *cycle) prioritizeExtenders(totals []int64, explain bool) {
	if len(c.e.extenders) == 0 || len(c.feasible) < 2 {
		// kube-scheduler scores nothing when a single node is left.
		return
	}
	nodes := make([]*cluster.Node, len(c.feasible))
	for k, i := range c.feasible {
		nodes[k] = c.Nodes()[i]
	}
	got := make([]map[string]int64, len(c.e.extenders))
	var wg sync.WaitGroup
	for j, x := range c.e.extenders {
		if !x.IsInterested(c.Pod().Pod) {
			continue
		}
		wg.Go(func() {
			s, err := x.Prioritize(c.Pod(), nodes)
			if err != nil {
				logger.V(5).Info("An extender's prioritize failed; it gives no score", "extender", x.Name(), "pod", c.Pod().Key, "err", err)
				return
			}
			got[j] = s
		})
	}
	wg.Wait()
	for j, x := range c.e.extenders {
		if got[j] == nil {
			continue
		}
		scaled := make([]int64, len(nodes))
		for k, n := range nodes {
			scaled[k] = got[j][n.Name] * (framework.MaxNodeScore / MaxExtenderScore)
			totals[k] += scaled[k] * x.Weight()
		}
		if explain {
			if c.ext == nil {
				c.ext = &extenderVerdicts{}
			}
			if c.ext.scores == nil {
				c.ext.scores = map[string][]int64{}
			}
			c.ext.scores[ExtenderBy(x.Name())] = scaled
		}
	}
}

// explainExtenders completes an explanation with what the extenders said:
// the scores of those that prioritized, and a reason for each node one
// dropped without giving one.
func (c *cycle) explainExtenders(nodes []NodeResult) {
	if c.ext == nil {
		return
	}
	for i := range c.ext.by {
		if nodes[i].Reason == "" {
			nodes[i].Reason = errReasonNotReturned
		}
	}
	for k, i := range c.feasible {
		for name, s := range c.ext.scores {
			if nodes[i].Scores == nil {
				nodes[i].Scores = map[string]int64{}
			}
			nodes[i].Scores[name] = s[k]
		}
	}
}

// extenderFailed is the decision a failing extender leaves: no node, and
// its error as the message, as kube-scheduler reports a scheduling error
// that is not a fit error.
func (c *cycle) extenderFailed(err error, res Result, opts Options) Result {
	res.Feasible = 0
	res.Error = err.Error()
	res.Message = err.Error()
	if opts.Explain {
		c.feasible = c.feasible[:0]
		res.Nodes = c.explain(nil, nil)
	}
	return res
}

// fitsExtenders is Fits' check of one node that passed the plugins.
func (c *cycle) fitsExtenders(i int) (bool, string) {
	c.feasible = append(c.feasible[:0], int32(i))
	if err := c.filterExtenders(); err != nil {
		return false, err.Error()
	}
	if len(c.feasible) == 1 {
		return true, ""
	}
	by, reasons := c.extenderReasons(i)
	if len(reasons) == 0 {
		return false, by + ": " + errReasonNotReturned
	}
	return false, by + ": " + reasons[0]
}
