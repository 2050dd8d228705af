package nodeaffinity

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// nodeAffinity moves pods whose node no longer satisfies their node
// affinity. Required: the node stopped matching the pod's nodeSelector or
// required node affinity (a label was removed or changed); the scheduler
// places the replacement only on a node that matches. Preferred: another
// node that can take the pod matches its preferred terms with a strictly
// higher total weight; the replacement goes to the best such node.
type nodeAffinity struct{}

// Name is the strategy's key under strategies: in a policy.
const Name = "RemovePodsViolatingNodeAffinity"

func (nodeAffinity) Name() string { return Name }

// GuardRule: with preferred, no target that matches the pod's
// preferred node affinity with less weight than its node.
func (nodeAffinity) GuardRule(in *framework.Cycle) framework.GuardRule {
	return &preferredAffinityRule{in: in}
}

// PlacementFree: a pod's required node affinity and the labels of its node.
// Preferred node affinity looks for a better node that has room.
func (s nodeAffinity) PlacementFree(in *framework.Cycle) bool {
	for _, a := range in.Policy.ArgsOf(s.Name()) {
		if a, ok := a.(*Args); !ok || a.Checks(PreferredDuringScheduling) {
			return false
		}
	}
	return true
}

func (s nodeAffinity) Run(in *framework.Cycle) {
	for _, n := range in.Nodes() {
		for _, p := range slices.Clone(n.Pods()) {
			a, ok := in.Args(s.Name(), p).(*Args)
			if !ok {
				continue
			}
			if a.Checks(RequiredDuringScheduling) {
				if why := requiredMismatch(in, p, n); why != "" {
					in.Move(s.Name(), framework.Candidate{Pod: p, Reason: why})
					continue
				}
			}
			if a.Checks(PreferredDuringScheduling) && hasPreferredNodeAffinity(p) {
				s.preferred(in, p, n)
			}
		}
	}
}

// requiredMismatch says how the node fails the pod's nodeSelector or
// required node affinity, or "" when it matches.
func requiredMismatch(in *framework.Cycle, p *cluster.Pod, n *cluster.Node) string {
	// Only the pod's own node is asked about. The placement table answers
	// for every node at once, and is shared by the pods of one spec; but a
	// DaemonSet's pods each require their own node (matchFields
	// metadata.name), and a table apiece would cost nodes² matches.
	if ok, err := nodeaffinity.GetRequiredNodeAffinity(p.Pod).Match(n.Node); ok && err == nil {
		return ""
	}
	keys := make([]string, 0, len(p.Spec.NodeSelector))
	for k := range p.Spec.NodeSelector {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		want := p.Spec.NodeSelector[k]
		if got, ok := n.Labels[k]; !ok {
			return fmt.Sprintf("nodeSelector %s=%s: %s has no label %s", k, want, n.Name, k)
		} else if got != want {
			return fmt.Sprintf("nodeSelector %s=%s: %s has %s=%s", k, want, n.Name, k, got)
		}
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return fmt.Sprintf("%s no longer matches the pod's nodeSelector", n.Name)
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) == 1 {
		for _, r := range terms[0].MatchExpressions {
			sel, err := nodeaffinity.NewNodeSelector(&corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{r}}}})
			if err == nil && !sel.Match(n.Node) {
				return fmt.Sprintf("required node affinity %s: %s", requirementString(r), labelState(n, r.Key))
			}
		}
	}
	return fmt.Sprintf("%s matches none of the pod's %d required node affinity terms", n.Name, len(terms))
}

func requirementString(r corev1.NodeSelectorRequirement) string {
	switch r.Operator {
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		return r.Key + " " + string(r.Operator)
	}
	return fmt.Sprintf("%s %s [%s]", r.Key, r.Operator, strings.Join(r.Values, ", "))
}

func labelState(n *cluster.Node, key string) string {
	if v, ok := n.Labels[key]; ok {
		return fmt.Sprintf("%s has %s=%s", n.Name, key, v)
	}
	return fmt.Sprintf("%s has no label %s", n.Name, key)
}

func hasPreferredNodeAffinity(p *cluster.Pod) bool {
	a := p.Spec.Affinity
	return a != nil && a.NodeAffinity != nil && len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0
}

// preferredScores returns, per node index, the total weight of the pod's
// preferred node affinity terms the node matches, kept per set of terms.
func preferredScores(in *framework.Cycle, p *cluster.Pod) []int64 {
	terms := p.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	b, _ := json.Marshal(terms)
	key := string(b)
	caches := cycleCaches.Of(in)
	if s, ok := caches.preferred[key]; ok && !in.NoCache {
		return s
	}
	nodes := in.Snapshot.Nodes()
	scores := make([]int64, len(nodes))
	if pt, err := nodeaffinity.NewPreferredSchedulingTerms(terms); err == nil {
		for i, n := range nodes {
			scores[i] = pt.Score(n.Node)
		}
	}
	if caches.preferred == nil {
		caches.preferred = make(map[string][]int64)
	}
	caches.preferred[key] = scores
	return scores
}

// preferred moves the pod when a node that can take it now scores higher
// than its own. The target must score as high as the best such node, so
// that the next run finds nothing better and leaves the pod alone.
func (s nodeAffinity) preferred(in *framework.Cycle, p *cluster.Pod, n *cluster.Node) {
	scores := preferredScores(in, p)
	current := scores[n.Index()]
	pl := in.Placement(p)
	var better []*cluster.Node
	for _, m := range in.Selected() {
		if scores[m.Index()] > current && m.Ready() && pl.Admits[m.Index()] {
			better = append(better, m)
		}
	}
	if len(better) == 0 {
		return
	}
	slices.SortStableFunc(better, func(a, b *cluster.Node) int {
		if sa, sb := scores[a.Index()], scores[b.Index()]; sa != sb {
			if sa > sb {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	best := int64(-1)
	var bestNode string
	for _, m := range better {
		if in.CanTake(in.Now(), s.Name(), p, in.Snapshot.Node(m.Name)) {
			best, bestNode = scores[m.Index()], m.Name
			break
		}
	}
	if best < 0 {
		klog.V(3).InfoS("RemovePodsViolatingNodeAffinity: no node that matches the preferred terms better can take the pod", "pod", p.Key, "node", n.Name)
		// Counted for the planner's reason when it would not evict the
		// pod, else for want of room; not listed, as every pod of a
		// workload that prefers full nodes would be.
		o := framework.Outcome{Category: framework.NoFit, Reason: fmt.Sprintf(
			"preferred node affinity weighs %d on %s, and none of the %d nodes that it weighs more on can take the pod", current, n.Name, len(better))}
		if !in.Evictable(s.Name(), p) {
			o = framework.Outcome{}
		}
		in.Count(s.Name(), p, o)
		return
	}
	in.Move(s.Name(), framework.Candidate{
		Pod:    p,
		Reason: fmt.Sprintf("preferred node affinity weighs %d on %s and %d on %s, which can take the pod", current, n.Name, best, bestNode),
		Accept: func(m *cluster.Node) (bool, string) {
			if scores[m.Index()] < best {
				return false, fmt.Sprintf("node(s) matched the preferred node affinity with less weight than %d", best)
			}
			return true, ""
		},
	})
}

// preferredAffinityRule keeps pods whose preferred node affinity the
// strategy checks off targets that match it with less weight than the
// pod's node: the next run would move the pod back.
type preferredAffinityRule struct {
	in *framework.Cycle
}

func (r *preferredAffinityRule) Check(_ framework.View, _ string, p *cluster.Pod, n *cluster.Node) (bool, string) {
	if !hasPreferredNodeAffinity(p) || p.Spec.NodeName == "" {
		return true, ""
	}
	a, ok := r.in.Args(Name, p).(*Args)
	if !ok || !a.Checks(PreferredDuringScheduling) {
		return true, ""
	}
	from := r.in.Snapshot.Node(p.Spec.NodeName)
	if from == nil {
		return true, ""
	}
	scores := preferredScores(r.in, p)
	if scores[n.Index()] < scores[from.Index()] {
		return false, fmt.Sprintf("node(s) matched the pod's preferred node affinity with less weight than %s (RemovePodsViolatingNodeAffinity)", from.Name)
	}
	return true, ""
}
