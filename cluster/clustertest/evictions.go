package clustertest

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// AfterEvictions returns the objects as the cluster holds them once the
// evictions are done and the controllers have caught up: each evicted pod
// is gone, and a pod evicted with a To node is replaced by a new pod (new
// name and UID, created at now, Running and Ready with no restarts) bound
// to that node. The objects given are not changed.
func AfterEvictions(objs cluster.Objects, evictions []cluster.Eviction, now time.Time) cluster.Objects {
	to := make(map[string]string, len(evictions))
	for _, e := range evictions {
		to[e.Pod] = e.To
	}
	out := objs
	out.Pods = nil
	for _, p := range objs.Pods {
		target, evicted := to[p.Namespace+"/"+p.Name]
		if !evicted {
			out.Pods = append(out.Pods, p)
			continue
		}
		if target == "" {
			continue
		}
		out.Pods = append(out.Pods, replacement(p, target, now))
	}
	return out
}

// replacement is the pod a controller creates for an evicted one, from the
// same template, as the scheduler binds it.
func replacement(p corev1.Pod, node string, now time.Time) corev1.Pod {
	r := corev1.Pod{
		ObjectMeta: *p.ObjectMeta.DeepCopy(),
		Spec:       *p.Spec.DeepCopy(),
	}
	r.Name = p.Name + "-r"
	r.UID = types.UID(fmt.Sprintf("%s-replacement", p.UID))
	r.CreationTimestamp = metav1.NewTime(now)
	r.DeletionTimestamp = nil
	r.ResourceVersion = ""
	r.Spec.NodeName = node
	started := metav1.NewTime(now)
	r.Status = corev1.PodStatus{
		Phase:     corev1.PodRunning,
		QOSClass:  p.Status.QOSClass,
		StartTime: &started,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: started},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: started},
		},
	}
	for _, c := range p.Spec.Containers {
		r.Status.ContainerStatuses = append(r.Status.ContainerStatuses, corev1.ContainerStatus{Name: c.Name, Image: c.Image, Ready: true,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}})
	}
	return r
}
