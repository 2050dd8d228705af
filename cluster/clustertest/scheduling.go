package clustertest

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Tolerate adds a toleration: Equal to value when value is set, Exists
// otherwise; an empty effect tolerates every effect.
func (b *PodBuilder) Tolerate(key, value string, effect corev1.TaintEffect) *PodBuilder {
	t := corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect}
	if value != "" {
		t.Operator, t.Value = corev1.TolerationOpEqual, value
	}
	return b.Toleration(t)
}

// Toleration adds any toleration, for the operators and effects Tolerate
// does not write.
func (b *PodBuilder) Toleration(t corev1.Toleration) *PodBuilder {
	b.p.Spec.Tolerations = append(b.p.Spec.Tolerations, t)
	return b
}

// NodeSelector sets one key of spec.nodeSelector.
func (b *PodBuilder) NodeSelector(key, value string) *PodBuilder {
	if b.p.Spec.NodeSelector == nil {
		b.p.Spec.NodeSelector = map[string]string{}
	}
	b.p.Spec.NodeSelector[key] = value
	return b
}

// Spread adds a topology spread constraint over the pods with the given
// labels.
func (b *PodBuilder) Spread(topologyKey string, maxSkew int32, when corev1.UnsatisfiableConstraintAction, matchLabels map[string]string) *PodBuilder {
	return b.SpreadConstraint(corev1.TopologySpreadConstraint{TopologyKey: topologyKey, MaxSkew: maxSkew, WhenUnsatisfiable: when,
		LabelSelector: &metav1.LabelSelector{MatchLabels: matchLabels}})
}

// SpreadConstraint adds any topology spread constraint.
func (b *PodBuilder) SpreadConstraint(c corev1.TopologySpreadConstraint) *PodBuilder {
	b.p.Spec.TopologySpreadConstraints = append(b.p.Spec.TopologySpreadConstraints, c)
	return b
}

// SchedulerName sets spec.schedulerName; empty leaves the choice to the
// API server's defaulting, as a controller's pod template may.
func (b *PodBuilder) SchedulerName(name string) *PodBuilder {
	b.p.Spec.SchedulerName = name
	return b
}
