package cluster

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// DefaultMaxUnavailable is a Deployment's spec.strategy.rollingUpdate.maxUnavailable
// when it sets none, as the API server defaults it.
var DefaultMaxUnavailable = intstr.FromString("25%")

// Tolerance is how many of a workload's pods may be unavailable at once by
// the workload's own spec: what its controller allows itself when it
// replaces pods. A plan takes it as the workload's budget where no
// PodDisruptionBudget covers its pods.
type Tolerance struct {
	Workload Workload
	// MaxUnavailable is the number of pods, at least 1: a workload that
	// tolerated none could never be moved, and a PodDisruptionBudget is
	// how an application says that.
	MaxUnavailable int32
	// Replicas is the count MaxUnavailable was resolved against.
	Replicas int32
	// Stated is the setting MaxUnavailable comes from, as written:
	// "maxUnavailable 25%", "one pod at a time".
	Stated string
	// Assumed, when set, says why a default stands for what the workload
	// states: its object is not in the snapshot, or its setting does not
	// parse.
	Assumed string
}

// String describes the tolerance, e.g. "maxUnavailable 25% of Deployment
// shop/web: 1 of 4 replicas a step".
func (t Tolerance) String() string {
	stated := t.Stated
	if t.Assumed != "" {
		stated += " (" + t.Assumed + ")"
	}
	return fmt.Sprintf("%s of %s: %d of %d replicas a step", stated, t.Workload, t.MaxUnavailable, t.Replicas)
}

// tolerances holds the Deployments and StatefulSets by "namespace/name".
type tolerances struct {
	deployments  map[string]*appsv1.Deployment
	statefulSets map[string]*appsv1.StatefulSet
}

func newTolerances(ds []appsv1.Deployment, sss []appsv1.StatefulSet) tolerances {
	t := tolerances{
		deployments:  make(map[string]*appsv1.Deployment, len(ds)),
		statefulSets: make(map[string]*appsv1.StatefulSet, len(sss)),
	}
	for i := range ds {
		t.deployments[ds[i].Namespace+"/"+ds[i].Name] = &ds[i]
	}
	for i := range sss {
		t.statefulSets[sss[i].Namespace+"/"+sss[i].Name] = &sss[i]
	}
	return t
}

// DeploymentOf returns the Deployment the workload names; nil for another
// kind or one the snapshot does not hold.
func (s *Snapshot) DeploymentOf(w Workload) *appsv1.Deployment {
	if w.Kind != "Deployment" {
		return nil
	}
	return s.tolerances.deployments[w.Namespace+"/"+w.Name]
}

// Unsettled returns why a Deployment is not settled, "" when it is: its
// controller has seen its last change, and every replica it asks for is
// updated and available, none beside them. Only a settled Deployment can
// surge: in a rollout the new replica would come from either ReplicaSet.
func Unsettled(d *appsv1.Deployment) string {
	replicas, st := orOne(d.Spec.Replicas), d.Status
	if d.Generation > st.ObservedGeneration || st.Replicas != replicas || st.UpdatedReplicas != replicas || st.AvailableReplicas != replicas {
		return fmt.Sprintf("Deployment %s/%s is not settled (spec.replicas %d, %d updated, %d available, %d in all)",
			d.Namespace, d.Name, replicas, st.UpdatedReplicas, st.AvailableReplicas, st.Replicas)
	}
	return ""
}

// ToleranceOf returns how many of the workload's pods may be down at once by
// its own spec; false for the kinds that state none (only Deployments and
// StatefulSets do).
//
// A Deployment states it in spec.strategy.rollingUpdate.maxUnavailable,
// resolved against spec.replicas rounding down, as the Deployment
// controller resolves it; a Recreate strategy, which takes every pod down
// for an update, says nothing of how many may be down otherwise, so the
// default of a rolling update stands for it. A StatefulSet replaces one
// pod at a time, or, with podManagementPolicy Parallel, as many as its
// spec.updateStrategy.rollingUpdate.maxUnavailable allows, resolved
// rounding up, as the StatefulSet controller resolves it (OrderedReady
// keeps its one pod at a time whatever that says).
func (s *Snapshot) ToleranceOf(w Workload) (Tolerance, bool) {
	key := w.Namespace + "/" + w.Name
	switch w.Kind {
	case "Deployment":
		t := Tolerance{Workload: w, Stated: "maxUnavailable " + DefaultMaxUnavailable.String()}
		value := DefaultMaxUnavailable
		d := s.tolerances.deployments[key]
		switch {
		case d == nil:
			t.Replicas = s.livePods(w)
			t.Assumed = "the default: the Deployment is not in the snapshot"
		case d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType:
			t.Replicas = orOne(d.Spec.Replicas)
			t.Assumed = "the default: its Recreate strategy states none"
		default:
			t.Replicas = orOne(d.Spec.Replicas)
			if ru := d.Spec.Strategy.RollingUpdate; ru != nil && ru.MaxUnavailable != nil {
				value = *ru.MaxUnavailable
				t.Stated = "maxUnavailable " + value.String()
			}
		}
		t.MaxUnavailable = t.resolve(value, false)
		return t, true
	case "StatefulSet":
		t := Tolerance{Workload: w, Stated: "one pod at a time"}
		ss := s.tolerances.statefulSets[key]
		if ss == nil {
			t.Replicas, t.MaxUnavailable = s.livePods(w), 1
			return t, true
		}
		t.Replicas, t.MaxUnavailable = orOne(ss.Spec.Replicas), 1
		ru := ss.Spec.UpdateStrategy.RollingUpdate
		if ss.Spec.PodManagementPolicy == appsv1.ParallelPodManagement && ss.Spec.UpdateStrategy.Type != appsv1.OnDeleteStatefulSetStrategyType &&
			ru != nil && ru.MaxUnavailable != nil {
			t.Stated = "maxUnavailable " + ru.MaxUnavailable.String()
			t.MaxUnavailable = t.resolve(*ru.MaxUnavailable, true)
		}
		return t, true
	}
	return Tolerance{}, false
}

// resolve scales value against t.Replicas, at least 1. A value that does
// not parse (the API server would have refused it) resolves to 1.
func (t *Tolerance) resolve(value intstr.IntOrString, roundUp bool) int32 {
	n, err := intstr.GetScaledValueFromIntOrPercent(&value, int(t.Replicas), roundUp)
	if err != nil {
		t.Assumed = fmt.Sprintf("%q does not parse: one pod at a time", value.String())
		return 1
	}
	return int32(max(n, 1))
}

// livePods counts the workload's pods that are not finished, at least 1:
// the replica count of a workload whose object the snapshot lacks.
func (s *Snapshot) livePods(w Workload) int32 {
	n := int32(0)
	for _, p := range s.workloads[w] {
		if !p.IsTerminal() {
			n++
		}
	}
	return max(n, 1)
}
