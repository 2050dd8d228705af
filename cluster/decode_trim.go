package cluster

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Trim drops from an object, decoded from a dump or read from the API
// server, the fields that no part of a plan reads and that weigh most in a real cluster's objects:
// a 150,000-pod snapshot would otherwise keep every container's
// environment, probes and mounts, every container status's IDs and every
// ReplicaSet's pod template. What remains is what the scheduler engine,
// the strategies and the report read.
func Trim(obj runtime.Object) {
	if m, ok := obj.(metav1.Object); ok {
		if a := m.GetAnnotations(); a != nil {
			// kubectl apply keeps a copy of the whole object in it.
			delete(a, corev1.LastAppliedConfigAnnotation)
		}
	}
	switch t := obj.(type) {
	case *corev1.Pod:
		for i := range t.Spec.InitContainers {
			trimContainer(&t.Spec.InitContainers[i])
		}
		for i := range t.Spec.Containers {
			trimContainer(&t.Spec.Containers[i])
		}
		for i := range t.Spec.EphemeralContainers {
			trimContainer((*corev1.Container)(&t.Spec.EphemeralContainers[i].EphemeralContainerCommon))
		}
		// What a volume is matters (local storage, a claim, a disk), and
		// only for the kinds a scheduler plugin, the guard or a strategy
		// reads: every pod's service account token and its configMaps,
		// secrets and downward API files are read by none.
		t.Spec.Volumes = slices.DeleteFunc(t.Spec.Volumes, unreadVolume)
		if len(t.Spec.Volumes) == 0 {
			t.Spec.Volumes = nil
		}
		st := &t.Status
		st.HostIP, st.HostIPs, st.PodIP, st.PodIPs = "", nil, "", nil
		for i := range st.Conditions {
			// Strategies match a condition's type, status, reason and
			// transition time; its words are for people.
			st.Conditions[i].Message, st.Conditions[i].LastProbeTime = "", metav1.Time{}
		}
		for _, list := range [][]corev1.ContainerStatus{st.InitContainerStatuses, st.ContainerStatuses, st.EphemeralContainerStatuses} {
			for i := range list {
				list[i].ImageID, list[i].ContainerID, list[i].VolumeMounts = "", "", nil
			}
		}
		// The decoder grows slices by doubling; the snapshot keeps them
		// for the whole run.
		clip(&t.Spec.Containers)
		clip(&t.Spec.Volumes)
		clip(&t.Spec.Tolerations)
		clip(&st.Conditions)
		clip(&st.ContainerStatuses)
	case *corev1.Node:
		t.Status.NodeInfo = corev1.NodeSystemInfo{}
		t.Status.Addresses = nil
		t.Status.DaemonEndpoints = corev1.NodeDaemonEndpoints{}
	case *appsv1.ReplicaSet:
		t.Spec.Template = corev1.PodTemplateSpec{}
	case *batchv1.Job:
		t.Spec.Template = corev1.PodTemplateSpec{}
	}
}

// unreadVolume reports whether nothing that plans reads a volume: one that
// holds files the kubelet writes from the API (projected, configMap,
// secret, downward API) and that a node neither attaches nor stores.
func unreadVolume(v corev1.Volume) bool {
	return v.Projected != nil || v.ConfigMap != nil || v.Secret != nil || v.DownwardAPI != nil
}

// trimContainer keeps what placing and evicting a pod read of a container:
// its name, image, ports, resources and restart policy.
func trimContainer(c *corev1.Container) {
	c.Command, c.Args, c.WorkingDir = nil, nil, ""
	c.Env, c.EnvFrom = nil, nil
	c.VolumeMounts, c.VolumeDevices = nil, nil
	c.LivenessProbe, c.ReadinessProbe, c.StartupProbe, c.Lifecycle = nil, nil, nil, nil
	c.TerminationMessagePath, c.TerminationMessagePolicy, c.ImagePullPolicy = "", "", ""
	c.SecurityContext = nil
}

// clip reallocates a slice whose capacity exceeds its length.
func clip[T any](s *[]T) {
	if cap(*s) > len(*s) {
		*s = slices.Clone(*s)
	}
}
