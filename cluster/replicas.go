package cluster

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Replicas is what the snapshot knows of how many pods a pod's controller
// asks for.
type Replicas struct {
	// Owner names the controller: "Kind namespace/name".
	Owner string
	// Count is the controller's spec.replicas (a Job's spec.parallelism),
	// defaulted as the API server defaults it. Valid when Found.
	Count int32
	// Counted is true for the kinds whose replica count the snapshot reads:
	// ReplicaSet, StatefulSet and Job.
	Counted bool
	// Found is true when the snapshot holds the controller.
	Found bool
}

// replicaCounts holds spec.replicas of each ReplicaSet and StatefulSet, by
// "Kind namespace/name". Only the count is kept: it is all that is read.
type replicaCounts map[string]int32

func newReplicaCounts(rss []appsv1.ReplicaSet, sss []appsv1.StatefulSet) replicaCounts {
	c := make(replicaCounts, len(rss)+len(sss))
	for i := range rss {
		c["ReplicaSet "+rss[i].Namespace+"/"+rss[i].Name] = orOne(rss[i].Spec.Replicas)
	}
	for i := range sss {
		c["StatefulSet "+sss[i].Namespace+"/"+sss[i].Name] = orOne(sss[i].Spec.Replicas)
	}
	return c
}

// orOne is a replica count as the API server defaults it: an unset
// spec.replicas (or a Job's spec.parallelism) is 1.
func orOne(n *int32) int32 {
	if n == nil {
		return 1
	}
	return *n
}

// ReplicasOf returns the replica count of the pod's controller, from the
// controller's spec, not from the pods the snapshot holds: pods that are
// pending, being replaced or on nodes a dump left out would make a count of
// pods wrong. A bare pod has an empty Owner.
func (s *Snapshot) ReplicasOf(p *Pod) Replicas {
	c := p.Controller()
	if c == nil {
		return Replicas{}
	}
	r := Replicas{Owner: c.Kind + " " + p.Namespace + "/" + c.Name}
	gv, err := schema.ParseGroupVersion(c.APIVersion)
	if err != nil {
		return r
	}
	switch {
	case (c.Kind == "ReplicaSet" || c.Kind == "StatefulSet") && (gv.Group == appsv1.GroupName || c.APIVersion == ""):
		r.Counted = true
		r.Count, r.Found = s.replicas[r.Owner]
	case c.Kind == "Job" && isBatchGroup(c.APIVersion):
		r.Counted = true
		if job := s.jobs[p.Namespace+"/"+c.Name]; job != nil {
			// A Job runs up to parallelism pods at once: its replicas.
			r.Count, r.Found = orOne(job.Spec.Parallelism), true
		}
	}
	return r
}

// TrimStatefulSet drops what a snapshot does not read of a StatefulSet (its
// pod template and claim templates, its status), which is most of the
// object: it keeps the replica count and what says how many pods may be
// down at once.
func TrimStatefulSet(ss *appsv1.StatefulSet) {
	ss.ManagedFields = nil
	ss.Spec = appsv1.StatefulSetSpec{Replicas: ss.Spec.Replicas, Selector: ss.Spec.Selector,
		PodManagementPolicy: ss.Spec.PodManagementPolicy, UpdateStrategy: ss.Spec.UpdateStrategy}
	ss.Status = appsv1.StatefulSetStatus{}
}

// TrimDeployment drops what a snapshot does not read of a Deployment: all
// but its replica count, selector and strategy.
func TrimDeployment(d *appsv1.Deployment) {
	d.ManagedFields = nil
	d.Spec = appsv1.DeploymentSpec{Replicas: d.Spec.Replicas, Selector: d.Spec.Selector, Strategy: d.Spec.Strategy}
	// The counts, not the conditions: a surge starts only on a Deployment
	// whose pods are all updated and available.
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Status.ObservedGeneration, Replicas: d.Status.Replicas,
		UpdatedReplicas: d.Status.UpdatedReplicas, ReadyReplicas: d.Status.ReadyReplicas, AvailableReplicas: d.Status.AvailableReplicas}
}
