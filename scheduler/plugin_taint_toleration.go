package scheduler

import (
	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// taintFilter keeps a pod off nodes with a NoSchedule or NoExecute taint it
// does not tolerate.
type taintFilter struct{}

func (taintFilter) name() string { return TaintToleration }

func (taintFilter) prepare(c *cycle) prepared {
	reasons, _ := c.untoleratedReasons()
	for _, r := range reasons {
		if r != nil {
			return prepared{}
		}
	}
	return prepared{skip: true}
}

func (taintFilter) filter(c *cycle, i int) []string {
	reasons, g := c.untoleratedReasons()
	return reasons[g.of[i]]
}

// taintScore prefers nodes with fewer PreferNoSchedule taints the pod does
// not tolerate: the count, normalized and reversed, so that the node with
// the most such taints scores 0 and nodes without any score 100.
type taintScore struct{}

func (taintScore) name() string { return TaintToleration }

func (taintScore) score(c *cycle, feasible []int32, out []int64) bool {
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
