package cluster

import (
	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
)

// HardTaint reports whether a taint keeps off the node every pod that does
// not tolerate it: NoSchedule and NoExecute do, PreferNoSchedule only
// weighs against the node.
func HardTaint(t *corev1.Taint) bool {
	return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
}

// UntoleratedHardTaint returns the first of the taints that is hard and
// that the tolerations do not tolerate: the one kube-scheduler's
// TaintToleration filter names when it turns the node down.
func UntoleratedHardTaint(taints []corev1.Taint, tolerations []corev1.Toleration) (corev1.Taint, bool) {
	return corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), taints, tolerations, HardTaint, false)
}

// ToleratesHardTaints reports whether the pod tolerates every NoSchedule
// and NoExecute taint of the node.
func ToleratesHardTaints(pod *corev1.Pod, node *corev1.Node) bool {
	_, untolerated := UntoleratedHardTaint(node.Spec.Taints, pod.Spec.Tolerations)
	return !untolerated
}

// cordonTaint is the taint the node lifecycle controller puts on a cordoned
// node.
var cordonTaint = corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}

// ToleratesUnschedulable reports whether the pod may land on a cordoned node
// (spec.unschedulable): kube-scheduler's NodeUnschedulable filter lets
// through the pods that tolerate the cordon's taint, as DaemonSet pods do,
// whether or not the node carries it.
func ToleratesUnschedulable(pod *corev1.Pod) bool {
	return corev1helpers.TolerationsTolerateTaint(klog.Background(), pod.Spec.Tolerations, &cordonTaint, false)
}
