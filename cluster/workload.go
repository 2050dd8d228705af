package cluster

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Workload names the top controller a pod belongs to: the Deployment of a
// ReplicaSet's pods, else the pod's own controller. Limits per workload,
// duplicate detection and topology spread all group pods by it.
type Workload struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// IsZero reports whether w names no workload (a bare pod).
func (w Workload) IsZero() bool { return w.Kind == "" }

// String returns "Kind namespace/name", or "" for a bare pod.
func (w Workload) String() string {
	if w.IsZero() {
		return ""
	}
	return w.Kind + " " + w.Namespace + "/" + w.Name
}

// Less orders workloads by kind, namespace and name.
func (w Workload) Less(o Workload) bool {
	if w.Kind != o.Kind {
		return w.Kind < o.Kind
	}
	if w.Namespace != o.Namespace {
		return w.Namespace < o.Namespace
	}
	return w.Name < o.Name
}

// replicaSetOwners maps "namespace/name" of each ReplicaSet to its own
// controller, for the ReplicaSets that have one.
type replicaSetOwners map[string]metav1.OwnerReference

func newReplicaSetOwners(rss []appsv1.ReplicaSet) replicaSetOwners {
	owners := make(replicaSetOwners, len(rss))
	for i := range rss {
		if c := metav1.GetControllerOfNoCopy(&rss[i]); c != nil {
			owners[rss[i].Namespace+"/"+rss[i].Name] = *c
		}
	}
	return owners
}

// workloadOf resolves the pod's top controller. A ReplicaSet that is not in
// the snapshot, or that no Deployment controls, is itself the workload.
func (o replicaSetOwners) workloadOf(p *Pod) Workload {
	return WorkloadOfPod(p.Pod, func(namespace, name string) *metav1.OwnerReference {
		if c, ok := o[namespace+"/"+name]; ok {
			return &c
		}
		return nil
	})
}

// WorkloadOfPod resolves a pod's top controller as a snapshot does, for the
// edges that keep ReplicaSets in an informer: rsController returns a
// ReplicaSet's own controller, nil when it has none or is unknown (the
// ReplicaSet is then the workload).
func WorkloadOfPod(p *corev1.Pod, rsController func(namespace, name string) *metav1.OwnerReference) Workload {
	c := metav1.GetControllerOfNoCopy(p)
	if c == nil {
		return Workload{}
	}
	w := Workload{Kind: c.Kind, Namespace: p.Namespace, Name: c.Name}
	if c.Kind == "ReplicaSet" {
		if top := rsController(p.Namespace, c.Name); top != nil {
			w.Kind, w.Name = top.Kind, top.Name
		}
	}
	return w
}
