package cluster

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestTemporaryNoExecute(t *testing.T) {
	seconds := func(s int64) *int64 { return &s }
	maintenance := corev1.Taint{Key: "maintenance", Effect: corev1.TaintEffectNoExecute}
	dedicated := corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoExecute}
	tests := []struct {
		name        string
		taints      []corev1.Taint
		tolerations []corev1.Toleration
		want        string // the taint's key, "" for none
		seconds     int64
	}{
		{
			name:   "no NoExecute taint",
			taints: []corev1.Taint{{Key: "maintenance", Effect: corev1.TaintEffectNoSchedule}},
			tolerations: []corev1.Toleration{{Key: "maintenance", Operator: corev1.TolerationOpExists,
				TolerationSeconds: seconds(60)}},
		},
		{
			name:        "tolerated for good",
			taints:      []corev1.Taint{maintenance},
			tolerations: []corev1.Toleration{{Key: "maintenance", Operator: corev1.TolerationOpExists}},
		},
		{
			name:        "tolerated for 300 seconds: the taint manager evicts the pod then",
			taints:      []corev1.Taint{maintenance},
			tolerations: []corev1.Toleration{{Key: "maintenance", Operator: corev1.TolerationOpExists, TolerationSeconds: seconds(300)}},
			want:        "maintenance",
			seconds:     300,
		},
		{
			name:   "not tolerated at all: kube-scheduler keeps the pod off, nothing to say here",
			taints: []corev1.Taint{maintenance},
		},
		{
			// The taint manager takes, for each taint, the first
			// toleration that tolerates it.
			name:   "the first toleration that matches decides",
			taints: []corev1.Taint{maintenance},
			tolerations: []corev1.Toleration{
				{Key: "maintenance", Operator: corev1.TolerationOpExists, TolerationSeconds: seconds(60)},
				{Operator: corev1.TolerationOpExists},
			},
			want:    "maintenance",
			seconds: 60,
		},
		{
			name:   "the shortest time of the taints",
			taints: []corev1.Taint{dedicated, maintenance},
			tolerations: []corev1.Toleration{
				{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "db"},
				{Key: "maintenance", Operator: corev1.TolerationOpExists, TolerationSeconds: seconds(120)},
			},
			want:    "maintenance",
			seconds: 120,
		},
		{
			name:        "a negative time is no time at all",
			taints:      []corev1.Taint{maintenance},
			tolerations: []corev1.Toleration{{Key: "maintenance", Operator: corev1.TolerationOpExists, TolerationSeconds: seconds(-5)}},
			want:        "maintenance",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: corev1.PodSpec{Tolerations: tt.tolerations}}
			node := &corev1.Node{Spec: corev1.NodeSpec{Taints: tt.taints}}
			taint, s, ok := TemporaryNoExecute(pod, node)
			if ok != (tt.want != "") || taint.Key != tt.want || s != tt.seconds {
				t.Errorf("got %q for %ds (%v), want %q for %ds", taint.Key, s, ok, tt.want, tt.seconds)
			}
		})
	}
}
