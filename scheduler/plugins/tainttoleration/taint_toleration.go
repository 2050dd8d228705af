// Package tainttoleration is kube-scheduler's TaintToleration plugin:
// untolerated NoSchedule and NoExecute taints keep a pod off a node, and
// untolerated PreferNoSchedule ones lower its score.
package tainttoleration

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// Name is the plugin's name in a profile.
const Name = "TaintToleration"

// ErrReasonUntoleratedTaint is kube-scheduler's TaintToleration reason,
// with the key and value of the node's first untolerated taint.
const ErrReasonUntoleratedTaint = "node(s) had untolerated taint {%s: %s}"

// taintToleration keeps a pod off nodes with a NoSchedule or NoExecute taint
// it does not tolerate, and prefers nodes with fewer PreferNoSchedule taints
// it does not tolerate.
type taintToleration struct {
	key framework.StateKey
}

var (
	_ framework.StaticFilterPlugin = (*taintToleration)(nil)
	_ framework.ScorePlugin        = (*taintToleration)(nil)
)

func New(_ any, h framework.Handle) (framework.Plugin, error) {
	return &taintToleration{key: h.StateKey()}, nil
}

// taintState is, per taint group, the reason for a node of the group, and
// whether the pod tolerates the group's NoSchedule and NoExecute taints,
// for the static check.
type taintState struct {
	reasons  [][]string
	rejected []bool
}

// Reset keeps the buffer.
func (s *taintState) Reset() { s.reasons = nil }

// familyState keeps the reasons per taint group by the pod's tolerations,
// which a workload's pods share.
type familyState struct {
	reasons framework.Memo[string, [][]string]
}

func (*taintToleration) Name() string { return Name }

func (p *taintToleration) PreFilter(c *framework.Cycle) framework.PreFilterResult {
	reasons, _ := p.untoleratedReasons(c)
	for _, r := range reasons {
		if r != nil {
			return framework.PreFilterResult{}
		}
	}
	return framework.PreFilterResult{Skip: true}
}

func (p *taintToleration) Filter(c *framework.Cycle, i int) []string {
	reasons, g := p.untoleratedReasons(c)
	return reasons[g.Of[i]]
}

func (p *taintToleration) AppendStaticChecks(c *framework.Cycle, checks []framework.NodeCheck) []framework.NodeCheck {
	reasons, g := p.untoleratedReasons(c)
	st := framework.State[taintState](c, p.key)
	rejected := framework.Zeroed(&st.rejected, len(reasons))
	for id, r := range reasons {
		rejected[id] = r != nil
	}
	return append(checks, framework.NodeCheck{Group: g.Of, Bits: rejected, Reasons: reasons, Key: "tolerations=" + c.UntoleratedTaints().Key})
}

// Score is the count of untolerated PreferNoSchedule taints, normalized and
// reversed, so that the node with the most such taints scores 0 and nodes
// without any score 100.
func (*taintToleration) Score(c *framework.Cycle, feasible []int32, out []int64) bool {
	var tolerations []corev1.Toleration
	for _, t := range c.Pod().Spec.Tolerations {
		if t.Effect == "" || t.Effect == corev1.TaintEffectPreferNoSchedule {
			tolerations = append(tolerations, t)
		}
	}
	g := c.TaintGroups()
	perGroup := make([]int64, len(g.Taints))
	for id, taints := range g.Taints {
		for k := range taints {
			if taints[k].Effect == corev1.TaintEffectPreferNoSchedule && !corev1helpers.TolerationsTolerateTaint(logger, tolerations, &taints[k], false) {
				perGroup[id]++
			}
		}
	}
	for k, i := range feasible {
		out[k] = perGroup[g.Of[i]]
	}
	framework.DefaultNormalizeScore(out, true)
	return true
}

// untoleratedReasons returns, per taint group, the reason for a node of
// that group (its first NoSchedule or NoExecute taint the pod does not
// tolerate), or nil when the pod tolerates them all.
func (p *taintToleration) untoleratedReasons(c *framework.Cycle) ([][]string, *framework.TaintGroups) {
	st := framework.State[taintState](c, p.key)
	u := c.UntoleratedTaints()
	if st.reasons == nil {
		st.reasons = framework.FamilyState[familyState](c, p.key).reasons.Get(u.Key, func() [][]string {
			reasons := make([][]string, len(u.First))
			for id, taint := range u.First {
				if taint != nil {
					reasons[id] = []string{fmt.Sprintf(ErrReasonUntoleratedTaint, taint.Key, taint.Value)}
				}
			}
			return reasons
		})
	}
	return st.reasons, u.Groups
}

// logger is what component-helpers log through; the plugin has nothing to
// say at the levels they use.
var logger = klog.Background()
