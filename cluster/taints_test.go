package cluster

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// Taints and tolerations as the Kubernetes docs describe them: a pod stays
// off a node with a NoSchedule or NoExecute taint it does not tolerate; a
// PreferNoSchedule taint only weighs against the node.
func TestToleratesHardTaints(t *testing.T) {
	taint := func(key, value string, effect corev1.TaintEffect) corev1.Taint {
		return corev1.Taint{Key: key, Value: value, Effect: effect}
	}
	tests := []struct {
		name        string
		taints      []corev1.Taint
		tolerations []corev1.Toleration
		tolerates   bool
		first       string // the key of the first untolerated hard taint
	}{
		{name: "no taint", tolerates: true},
		{
			name:   "NoSchedule not tolerated",
			taints: []corev1.Taint{taint("key1", "value1", corev1.TaintEffectNoSchedule)},
			first:  "key1",
		},
		{
			name:   "NoExecute not tolerated",
			taints: []corev1.Taint{taint("key1", "value1", corev1.TaintEffectNoExecute)},
			first:  "key1",
		},
		{
			name:      "PreferNoSchedule does not keep the pod off",
			taints:    []corev1.Taint{taint("key1", "value1", corev1.TaintEffectPreferNoSchedule)},
			tolerates: true,
		},
		{
			name:        "Equal toleration of key, value and effect",
			taints:      []corev1.Taint{taint("key1", "value1", corev1.TaintEffectNoSchedule)},
			tolerations: []corev1.Toleration{{Key: "key1", Operator: corev1.TolerationOpEqual, Value: "value1", Effect: corev1.TaintEffectNoSchedule}},
			tolerates:   true,
		},
		{
			name:        "Exists toleration of the key",
			taints:      []corev1.Taint{taint("key1", "value1", corev1.TaintEffectNoSchedule)},
			tolerations: []corev1.Toleration{{Key: "key1", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			tolerates:   true,
		},
		{
			name:        "a toleration without effect matches every effect of its key",
			taints:      []corev1.Taint{taint("key1", "value1", corev1.TaintEffectNoSchedule), taint("key1", "value1", corev1.TaintEffectNoExecute)},
			tolerations: []corev1.Toleration{{Key: "key1", Operator: corev1.TolerationOpEqual, Value: "value1"}},
			tolerates:   true,
		},
		{
			name:        "an empty key with Exists tolerates everything",
			taints:      []corev1.Taint{taint("key1", "value1", corev1.TaintEffectNoSchedule), taint("key2", "", corev1.TaintEffectNoExecute)},
			tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			tolerates:   true,
		},
		{
			name:        "a toleration of the wrong value",
			taints:      []corev1.Taint{taint("key1", "value1", corev1.TaintEffectNoSchedule)},
			tolerations: []corev1.Toleration{{Key: "key1", Operator: corev1.TolerationOpEqual, Value: "value2", Effect: corev1.TaintEffectNoSchedule}},
			first:       "key1",
		},
		{
			name:        "the docs' example: two of three taints tolerated, the NoSchedule one is not",
			taints:      []corev1.Taint{taint("key1", "value1", corev1.TaintEffectNoSchedule), taint("key1", "value1", corev1.TaintEffectNoExecute), taint("key2", "value2", corev1.TaintEffectNoSchedule)},
			tolerations: []corev1.Toleration{{Key: "key1", Operator: corev1.TolerationOpEqual, Value: "value1", Effect: corev1.TaintEffectNoSchedule}, {Key: "key1", Operator: corev1.TolerationOpEqual, Value: "value1", Effect: corev1.TaintEffectNoExecute}},
			first:       "key2",
		},
		{
			name:   "the first hard taint is named, PreferNoSchedule ones skipped",
			taints: []corev1.Taint{taint("soft", "", corev1.TaintEffectPreferNoSchedule), taint("hard1", "", corev1.TaintEffectNoExecute), taint("hard2", "", corev1.TaintEffectNoSchedule)},
			first:  "hard1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: corev1.PodSpec{Tolerations: tt.tolerations}}
			node := &corev1.Node{Spec: corev1.NodeSpec{Taints: tt.taints}}
			if got := ToleratesHardTaints(pod, node); got != tt.tolerates {
				t.Errorf("tolerates: %v, want %v", got, tt.tolerates)
			}
			first, bad := UntoleratedHardTaint(tt.taints, tt.tolerations)
			if bad == tt.tolerates || first.Key != tt.first {
				t.Errorf("first untolerated hard taint %q (%v), want %q", first.Key, bad, tt.first)
			}
		})
	}
}

// A cordoned node takes only the pods that tolerate the
// node.kubernetes.io/unschedulable:NoSchedule taint, as DaemonSet pods do.
func TestToleratesUnschedulable(t *testing.T) {
	tests := []struct {
		name        string
		tolerations []corev1.Toleration
		tolerates   bool
	}{
		{name: "no toleration"},
		{
			name:        "the DaemonSet controller's toleration",
			tolerations: []corev1.Toleration{{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			tolerates:   true,
		},
		{
			name:        "the key with any effect",
			tolerations: []corev1.Toleration{{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists}},
			tolerates:   true,
		},
		{
			name:        "tolerating everything",
			tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			tolerates:   true,
		},
		{
			name:        "the key with NoExecute only",
			tolerations: []corev1.Toleration{{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}},
		},
		{
			name:        "another key",
			tolerations: []corev1.Toleration{{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: corev1.PodSpec{Tolerations: tt.tolerations}}
			if got := ToleratesUnschedulable(pod); got != tt.tolerates {
				t.Errorf("tolerates the cordon: %v, want %v", got, tt.tolerates)
			}
		})
	}
}
