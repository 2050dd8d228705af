package strategies

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// toleratesHardTaints reports whether the pod tolerates every NoSchedule
// and NoExecute taint of the node: with its node affinity and the cordon,
// what makes a node one of the pod's possible homes (Input.placement) —
// resources, ports and other pods aside, which change from move to move.
func toleratesHardTaints(p *corev1.Pod, n *cluster.Node) bool {
	_, untolerated := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), n.Spec.Taints, p.Spec.Tolerations, hardTaint, false)
	return !untolerated
}

func hardTaint(t *corev1.Taint) bool {
	return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
}

// toleratesUnschedulable reports whether the pod tolerates the taint that
// stands for a cordon, which lets it onto cordoned nodes as kube-scheduler
// allows.
func toleratesUnschedulable(p *corev1.Pod) bool {
	t := corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}
	return corev1helpers.TolerationsTolerateTaint(klog.Background(), p.Spec.Tolerations, &t, false)
}
