package cluster

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestTrimKeepsWhatAPlanReads(t *testing.T) {
	ready := metav1.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		obj  runtime.Object
		want runtime.Object
	}{
		{
			name: "kubectl apply's copy of the object goes, the eviction opt-out and the deletion cost stay",
			obj: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Annotations: map[string]string{
				corev1.LastAppliedConfigAnnotation:      `{"apiVersion":"v1","kind":"Pod"}`,
				"descheduler.alpha.kubernetes.io/evict": "",
				corev1.PodDeletionCost:                  "-10",
			}}},
			want: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Annotations: map[string]string{
				"descheduler.alpha.kubernetes.io/evict": "",
				corev1.PodDeletionCost:                  "-10",
			}}},
		},
		{
			name: "a condition keeps its type, status, reason and transition time",
			obj: &corev1.Pod{Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{
				Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady",
				Message:       "containers with unready status: [web]",
				LastProbeTime: ready, LastTransitionTime: ready,
			}}}},
			want: &corev1.Pod{Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{
				Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady",
				LastTransitionTime: ready,
			}}}},
		},
		{
			name: "a node's last-applied annotation goes too",
			obj: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Annotations: map[string]string{
				corev1.LastAppliedConfigAnnotation: `{"apiVersion":"v1","kind":"Node"}`,
			}}},
			want: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Annotations: map[string]string{}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			Trim(tt.obj)
			if !reflect.DeepEqual(tt.obj, tt.want) {
				t.Errorf("Trim() = %+v\nwant %+v", tt.obj, tt.want)
			}
		})
	}
}
