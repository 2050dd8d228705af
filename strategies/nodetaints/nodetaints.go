package nodetaints

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// nodeTaints moves pods off nodes with a NoSchedule taint they do not
// tolerate: a taint added after they were scheduled, or a toleration their
// controller's template dropped. NoExecute taints are the kubelet's taint
// manager's to act on. The cordon taint and the taints derived from node
// conditions (memory pressure and the like) are left alone unless the
// arguments name them (DefaultExcludedTaints): a cordoned node is
// for whoever cordoned it to drain, and a node under pressure is the
// kubelet's to relieve.
type nodeTaints struct{}

// Name is the strategy's key under strategies: in a policy.
const Name = "RemovePodsViolatingNodeTaints"

func (nodeTaints) Name() string { return Name }

// GuardRule: with includePreferNoSchedule, no target with a
// PreferNoSchedule taint the pod does not tolerate and the strategy acts on
// (NoSchedule ones the scheduler already refuses).
func (nodeTaints) GuardRule(in *framework.Cycle) framework.GuardRule {
	r := preferNoScheduleRule{in: in, preferred: make([]bool, len(in.Snapshot.Nodes()))}
	for i, n := range in.Snapshot.Nodes() {
		r.preferred[i] = slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Effect == corev1.TaintEffectPreferNoSchedule })
	}
	return r
}

// PlacementFree: a pod and the taints of its node.
func (nodeTaints) PlacementFree(*framework.Cycle) bool { return true }

func (s nodeTaints) Run(in *framework.Cycle) {
	// A move changes no node's taints: every pod that breaks one is found
	// first, so that limits spend the cycle's evictions on the cheapest.
	var found []framework.Candidate
	for _, n := range in.Nodes() {
		if len(n.Spec.Taints) == 0 {
			continue
		}
		for _, p := range n.Pods() {
			a, ok := in.Args(s.Name(), p).(*Args)
			if !ok {
				continue
			}
			t, bad := untoleratedTaint(a, p, n, false)
			if !bad {
				continue
			}
			found = append(found, framework.Candidate{Pod: p, Reason: fmt.Sprintf("untolerated taint %s on %s", taintString(t), n.Name)})
		}
	}
	slices.SortStableFunc(found, func(a, b framework.Candidate) int { return framework.Cheaper(a.Pod, b.Pod) })
	for _, c := range found {
		in.Move(s.Name(), c)
	}
}

// untoleratedTaint returns the first taint of the node that the strategy
// acts on and the pod does not tolerate. onlyPreferred limits the search to
// PreferNoSchedule taints.
func untoleratedTaint(a *Args, p *cluster.Pod, n *cluster.Node, onlyPreferred bool) (*corev1.Taint, bool) {
	for i := range n.Spec.Taints {
		t := &n.Spec.Taints[i]
		if onlyPreferred && t.Effect != corev1.TaintEffectPreferNoSchedule {
			continue
		}
		if !a.Considers(t.Key, t.Value, string(t.Effect)) {
			continue
		}
		if !corev1helpers.TolerationsTolerateTaint(klog.Background(), p.Spec.Tolerations, t, false) {
			return t, true
		}
	}
	return nil, false
}

// taintString formats a taint as kubectl does: key=value:Effect.
func taintString(t *corev1.Taint) string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}

// preferNoScheduleRule keeps pods off targets with a PreferNoSchedule
// taint they do not tolerate, when the strategy acts on those: the next run
// would move them off again. The scheduler's filter already refuses
// untolerated NoSchedule taints.
type preferNoScheduleRule struct {
	in *framework.Cycle
	// preferred tells, by node index, the nodes with a PreferNoSchedule
	// taint: the rule is asked about every node a placement filters, and
	// most have none. Taints do not change with moves.
	preferred []bool
}

func (r preferNoScheduleRule) Check(_ framework.View, _ string, p *cluster.Pod, n *cluster.Node) (bool, string) {
	if !r.preferred[n.Index()] {
		return true, ""
	}
	a, ok := r.in.Args(Name, p).(*Args)
	if !ok || !a.IncludesPreferNoSchedule() {
		return true, ""
	}
	if t, bad := untoleratedTaint(a, p, n, true); bad {
		return false, fmt.Sprintf("node(s) had untolerated taint {%s: %s} (RemovePodsViolatingNodeTaints includes PreferNoSchedule)", t.Key, t.Value)
	}
	return true, ""
}
