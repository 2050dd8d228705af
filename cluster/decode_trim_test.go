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
			name: "the volumes a plan reads stay, the service account token and files from the API go",
			obj: &corev1.Pod{Spec: corev1.PodSpec{Volumes: []corev1.Volume{
				{Name: "kube-api-access-x7k2p", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
					Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}}},
				}}},
				{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-web-1"}}},
				{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}},
				{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "tls"}}},
				{Name: "labels", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{}}},
				{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			}}},
			want: &corev1.Pod{Spec: corev1.PodSpec{Volumes: []corev1.Volume{
				{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-web-1"}}},
				{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			}}},
		},
		{
			name: "a pod with only the service account token has no volumes left",
			obj: &corev1.Pod{Spec: corev1.PodSpec{Volumes: []corev1.Volume{
				{Name: "kube-api-access-x7k2p", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{}}},
			}}},
			want: &corev1.Pod{},
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
