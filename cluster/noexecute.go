package cluster

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// TemporaryNoExecute returns a NoExecute taint of the node that the pod
// tolerates only for a while, and for how many seconds the pod may stay:
// the least tolerationSeconds of the tolerations that tolerate the node's
// NoExecute taints, each taint by the first toleration that tolerates it,
// as the taint manager chooses them. kube-scheduler admits such a pod onto
// the node; the taint manager evicts it when the time is up. ok is false
// when the pod tolerates every NoExecute taint of the node for good, or
// does not tolerate one at all (kube-scheduler keeps it off the node then).
func TemporaryNoExecute(pod *corev1.Pod, node *corev1.Node) (taint corev1.Taint, seconds int64, ok bool) {
	// The planner asks for every node a placement looks at, and most
	// nodes have no NoExecute taint: no logger for them.
	var logger klog.Logger
	for i := range node.Spec.Taints {
		t := &node.Spec.Taints[i]
		if t.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if logger.GetSink() == nil {
			logger = klog.Background()
		}
		var used *corev1.Toleration
		for j := range pod.Spec.Tolerations {
			if pod.Spec.Tolerations[j].ToleratesTaint(logger, t, false) {
				used = &pod.Spec.Tolerations[j]
				break
			}
		}
		if used == nil {
			return corev1.Taint{}, 0, false
		}
		if s := used.TolerationSeconds; s != nil && (!ok || max(*s, 0) < seconds) {
			taint, seconds, ok = *t, max(*s, 0), true
		}
	}
	return taint, seconds, ok
}
