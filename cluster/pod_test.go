package cluster

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The effective request rule, from the Kubernetes docs on init containers
// and sidecar containers: a pod needs the larger of (the sum of its app
// containers and sidecars) and (each init container plus the sidecars started
// before it), plus its overhead.
func TestEffectiveRequests(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	sidecar := func(c corev1.Container) corev1.Container { c.RestartPolicy = &always; return c }
	tests := []struct {
		name       string
		init       []corev1.Container
		containers []corev1.Container
		overhead   corev1.ResourceList
		podLevel   *corev1.ResourceRequirements
		wantCPU    int64 // millicores
		wantMemory int64 // bytes
	}{
		{
			name:       "app containers add up",
			containers: []corev1.Container{container("a", "100m", "64Mi"), container("b", "200m", "64Mi")},
			wantCPU:    300, wantMemory: 128 << 20,
		},
		{
			name:       "a big init container sets the floor",
			init:       []corev1.Container{container("migrate", "1", "32Mi")},
			containers: []corev1.Container{container("a", "100m", "64Mi")},
			wantCPU:    1000, wantMemory: 64 << 20,
		},
		{
			name:       "a sidecar adds to the app containers and to later init containers",
			init:       []corev1.Container{sidecar(container("proxy", "50m", "16Mi")), container("migrate", "500m", "16Mi")},
			containers: []corev1.Container{container("a", "100m", "64Mi")},
			wantCPU:    550, wantMemory: 80 << 20,
		},
		{
			name:       "overhead is added",
			containers: []corev1.Container{container("a", "100m", "64Mi")},
			overhead:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("120Mi")},
			wantCPU:    350, wantMemory: 184 << 20,
		},
		{
			name:       "pod-level requests replace the sum of the containers",
			containers: []corev1.Container{container("a", "100m", "64Mi")},
			podLevel:   &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")}},
			wantCPU:    1000, wantMemory: 1 << 30,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pod("default", "p", "n1", tt.containers...)
			p.Spec.InitContainers = tt.init
			p.Spec.Overhead = tt.overhead
			p.Spec.Resources = tt.podLevel
			got := newPod(&p, 0).Requests
			if got.MilliCPU != tt.wantCPU || got.Memory != tt.wantMemory || got.Pods != 1 {
				t.Errorf("Requests = %dm cpu, %d memory, %d pods; want %dm, %d, 1", got.MilliCPU, got.Memory, got.Pods, tt.wantCPU, tt.wantMemory)
			}
		})
	}
}

func TestNonZeroRequestsUseSchedulerDefaults(t *testing.T) {
	p := pod("default", "p", "n1", container("a", "", ""), container("b", "300m", ""))
	got := newPod(&p, 0).NonZeroRequests
	if got.MilliCPU != 400 || got.Memory != 400<<20 {
		t.Errorf("NonZeroRequests = %dm, %d; want 400m (100m default + 300m), 400Mi (2 x 200Mi default)", got.MilliCPU, got.Memory)
	}
}

func TestQoSClassWithoutStatus(t *testing.T) {
	limits := func(c corev1.Container, cpu, mem string) corev1.Container {
		c.Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}
		return c
	}
	tests := []struct {
		name string
		c    corev1.Container
		want corev1.PodQOSClass
	}{
		{"no requests or limits", container("a", "", ""), corev1.PodQOSBestEffort},
		{"requests only", container("a", "100m", "64Mi"), corev1.PodQOSBurstable},
		{"limits equal requests", limits(container("a", "100m", "64Mi"), "100m", "64Mi"), corev1.PodQOSGuaranteed},
		{"limits only (requests default to them)", limits(container("a", "", ""), "100m", "64Mi"), corev1.PodQOSGuaranteed},
		{"limits above requests", limits(container("a", "100m", "64Mi"), "200m", "64Mi"), corev1.PodQOSBurstable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pod("default", "p", "n1", tt.c)
			if got := qosClass(&p); got != tt.want {
				t.Errorf("qosClass() = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestPodKinds(t *testing.T) {
	now := time.Now()
	mirror := pod("kube-system", "etcd-n1", "n1")
	mirror.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "abc"}
	ds := ownedBy(pod("kube-system", "proxy", "n1"), "DaemonSet", "kube-proxy")
	terminating := pod("default", "leaving", "n1")
	deleted := metav1.NewTime(now)
	terminating.DeletionTimestamp = &deleted
	failed := pod("default", "failed", "n1")
	failed.Status.Phase = corev1.PodFailed
	withEmptyDir := pod("default", "cache", "n1")
	withEmptyDir.Spec.Volumes = []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	withPVC := pod("default", "db", "n1")
	withPVC.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}

	tests := []struct {
		name string
		p    corev1.Pod
		is   func(*Pod) bool
	}{
		{"mirror pod", mirror, (*Pod).IsMirror},
		{"DaemonSet pod", ds, (*Pod).IsDaemonSetPod},
		{"terminating pod", terminating, (*Pod).IsTerminating},
		{"failed pod is terminal", failed, (*Pod).IsTerminal},
		{"emptyDir is local storage", withEmptyDir, (*Pod).HasLocalStorage},
		{"PVC", withPVC, (*Pod).HasPVC},
	}
	plain := pod("default", "plain", "n1")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.is(newPod(&tt.p, 0)) {
				t.Errorf("%s: predicate is false", tt.name)
			}
			if tt.is(newPod(&plain, 0)) {
				t.Errorf("%s: predicate is true for a plain running pod", tt.name)
			}
		})
	}
}

// kube-scheduler records a pod it found no node for as condition
// PodScheduled False with reason Unschedulable; a pod held back by
// scheduling gates carries reason SchedulingGated instead, and a bound pod
// PodScheduled True.
func TestUnschedulableSince(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	cond := func(status corev1.ConditionStatus, reason string) []corev1.PodCondition {
		return []corev1.PodCondition{
			{Type: corev1.PodReady, Status: corev1.ConditionFalse},
			{Type: corev1.PodScheduled, Status: status, Reason: reason, LastTransitionTime: at},
		}
	}
	tests := []struct {
		name       string
		conditions []corev1.PodCondition
		want       bool
		since      time.Time
	}{
		{"found unschedulable", cond(corev1.ConditionFalse, corev1.PodReasonUnschedulable), true, at.Time},
		{"gated", cond(corev1.ConditionFalse, corev1.PodReasonSchedulingGated), false, at.Time},
		{"scheduled", cond(corev1.ConditionTrue, ""), false, at.Time},
		{"not tried yet", nil, false, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Pod{Pod: &corev1.Pod{Status: corev1.PodStatus{Conditions: tt.conditions}}}
			since, ok := p.UnschedulableSince()
			if ok != tt.want || !since.Equal(tt.since) {
				t.Errorf("UnschedulableSince() = %v, %v; want %v, %v", since, ok, tt.since, tt.want)
			}
		})
	}
}
