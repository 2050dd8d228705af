package scheduler

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// TaintToleration is the plugin's name in a profile.
const TaintToleration = "TaintToleration"

// ErrReasonUntoleratedTaint is kube-scheduler's TaintToleration reason,
// with the key and value of the node's first untolerated taint.
const ErrReasonUntoleratedTaint = "node(s) had untolerated taint {%s: %s}"

// taintToleration keeps a pod off nodes with a NoSchedule or NoExecute taint
// it does not tolerate, and prefers nodes with fewer PreferNoSchedule taints
// it does not tolerate.
type taintToleration struct {
	key StateKey
}

var (
	_ StaticFilterPlugin = (*taintToleration)(nil)
	_ ScorePlugin        = (*taintToleration)(nil)
)

func newTaintToleration(_ any, h Handle) (Plugin, error) {
	return &taintToleration{key: h.StateKey()}, nil
}

// taintState is, per taint group, whether the pod tolerates the group's
// NoSchedule and NoExecute taints, for the static check.
type taintState struct {
	rejected []bool
}

// Reset keeps the buffer.
func (s *taintState) Reset() {}

func (*taintToleration) Name() string { return TaintToleration }

func (*taintToleration) PreFilter(c *Cycle) PreFilterResult {
	reasons, _ := c.untoleratedReasons()
	for _, r := range reasons {
		if r != nil {
			return PreFilterResult{}
		}
	}
	return PreFilterResult{Skip: true}
}

func (*taintToleration) Filter(c *Cycle, i int) []string {
	reasons, g := c.untoleratedReasons()
	return reasons[g.of[i]]
}

func (p *taintToleration) AppendStaticChecks(c *Cycle, checks []NodeCheck) []NodeCheck {
	reasons, g := c.untoleratedReasons()
	st := State[taintState](c, p.key)
	rejected := zeroed(&st.rejected, len(reasons))
	for id, r := range reasons {
		rejected[id] = r != nil
	}
	return append(checks, NodeCheck{Group: g.of, Bits: rejected, Reasons: reasons, Key: "tolerations=" + c.tolerationsKey})
}

// Score is the count of untolerated PreferNoSchedule taints, normalized and
// reversed, so that the node with the most such taints scores 0 and nodes
// without any score 100.
func (*taintToleration) Score(c *Cycle, feasible []int32, out []int64) bool {
	var tolerations []corev1.Toleration
	for _, t := range c.pod.Spec.Tolerations {
		if t.Effect == "" || t.Effect == corev1.TaintEffectPreferNoSchedule {
			tolerations = append(tolerations, t)
		}
	}
	g := c.t.taintGroups()
	perGroup := make([]int64, len(g.taints))
	for id, taints := range g.taints {
		for k := range taints {
			if taints[k].Effect == corev1.TaintEffectPreferNoSchedule && !corev1helpers.TolerationsTolerateTaint(logger, tolerations, &taints[k], false) {
				perGroup[id]++
			}
		}
	}
	for k, i := range feasible {
		out[k] = perGroup[g.of[i]]
	}
	normalizeToMax(out, true)
	return true
}

// untoleratedReasons returns, per taint group, the TaintToleration reason
// for a node of that group (its first NoSchedule or NoExecute taint the pod
// does not tolerate), or nil when the pod tolerates them all. The answer is
// kept in the cycle because PodTopologySpread's nodeTaintsPolicy asks it
// too, whether or not this plugin is enabled, and in the tables by the
// pod's tolerations, which a workload's pods share.
func (c *Cycle) untoleratedReasons() ([][]string, *taintGroups) {
	if c.taints == nil {
		c.taints = c.t.taintGroups()
	}
	g := c.taints
	if c.untolerated == nil {
		c.tolerationsKey = string(cluster.AppendTolerationsKey(nil, c.pod.Spec.Tolerations))
		c.untolerated = memo(c.t, c.t.untolerated, c.tolerationsKey, func() [][]string {
			reasons := make([][]string, len(g.taints))
			for id, taints := range g.taints {
				taint, bad := cluster.UntoleratedHardTaint(taints, c.pod.Spec.Tolerations)
				if bad {
					reasons[id] = []string{fmt.Sprintf(ErrReasonUntoleratedTaint, taint.Key, taint.Value)}
				}
			}
			return reasons
		})
	}
	return c.untolerated, g
}
