package cluster

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// PDB is a PodDisruptionBudget of the snapshot with its parsed selector.
type PDB struct {
	*policyv1.PodDisruptionBudget
	// Key is "namespace/name".
	Key      string
	selector labels.Selector
}

func newPDB(p *policyv1.PodDisruptionBudget) (*PDB, error) {
	// In policy/v1 a nil selector selects no pod and an empty one selects
	// every pod of the namespace; LabelSelectorAsSelector has the same rule.
	sel, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("PodDisruptionBudget %s/%s: %w", p.Namespace, p.Name, err)
	}
	return &PDB{PodDisruptionBudget: p, Key: p.Namespace + "/" + p.Name, selector: sel}, nil
}

// Matches reports whether the budget covers the pod.
func (p *PDB) Matches(pod *corev1.Pod) bool {
	return pod.Namespace == p.Namespace && p.selector.Matches(labels.Set(pod.Labels))
}

// DisruptionsAllowed is the number of evictions the API server would accept
// now. A status the disruption controller has not caught up with is not
// trusted, as the API server does not trust it either.
func (p *PDB) DisruptionsAllowed() int32 {
	if p.Status.ObservedGeneration < p.Generation {
		return 0
	}
	return p.Status.DisruptionsAllowed
}

// NeverAllows returns why the budget allows no disruption even while every
// pod it covers is healthy, or "": a maxUnavailable of 0, or a minAvailable
// that asks for every pod the disruption controller expects. No later run
// finds it otherwise while the budget stands.
func (p *PDB) NeverAllows() string {
	if mu := p.Spec.MaxUnavailable; mu != nil {
		if v, err := intstr.GetScaledValueFromIntOrPercent(mu, 100, true); err == nil && v == 0 {
			return "maxUnavailable: " + mu.String()
		}
	}
	st := p.Status
	if ma := p.Spec.MinAvailable; ma != nil && st.ObservedGeneration >= p.Generation && st.ExpectedPods > 0 && st.DesiredHealthy >= st.ExpectedPods {
		return fmt.Sprintf("minAvailable: %s, all %d of its pods", ma.String(), st.ExpectedPods)
	}
	return ""
}

// AllowsUnhealthyEviction reports whether the API server lets a pod that is
// not Ready be evicted without spending the budget: always under the
// AlwaysAllow policy, and under the default IfHealthyBudget while the
// application has as many healthy pods as it needs.
func (p *PDB) AllowsUnhealthyEviction() bool {
	if p.Spec.UnhealthyPodEvictionPolicy != nil && *p.Spec.UnhealthyPodEvictionPolicy == policyv1.AlwaysAllow {
		return true
	}
	return p.Status.ObservedGeneration >= p.Generation &&
		p.Status.DesiredHealthy > 0 && p.Status.CurrentHealthy >= p.Status.DesiredHealthy
}

// CountsAgainst reports whether evicting the pod spends one of the budget's
// allowed disruptions. The API server evicts pods that are pending, finished
// or already terminating without consulting the budget, and not-Ready pods
// too when the budget allows unhealthy eviction.
func (p *PDB) CountsAgainst(pod *corev1.Pod) bool {
	switch {
	case pod.Status.Phase == corev1.PodPending || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed:
		return false
	case pod.DeletionTimestamp != nil:
		return false
	}
	return IsReady(pod) || !p.AllowsUnhealthyEviction()
}

// IsReady reports whether the pod's Ready condition is true.
func IsReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
