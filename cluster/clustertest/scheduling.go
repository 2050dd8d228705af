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

func (b *PodBuilder) nodeAffinity() *corev1.NodeAffinity {
	if b.p.Spec.Affinity == nil {
		b.p.Spec.Affinity = &corev1.Affinity{}
	}
	if b.p.Spec.Affinity.NodeAffinity == nil {
		b.p.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	return b.p.Spec.Affinity.NodeAffinity
}

// RequireNodeLabelIn adds "key In values" to the first term of the pod's
// required node affinity.
func (b *PodBuilder) RequireNodeLabelIn(key string, values ...string) *PodBuilder {
	na := b.nodeAffinity()
	if na.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{}}}
	}
	t := &na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0]
	t.MatchExpressions = append(t.MatchExpressions, corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values})
	return b
}

// PreferNodeLabelIn adds a preferred node affinity term "key In values"
// with a weight.
func (b *PodBuilder) PreferNodeLabelIn(weight int32, key string, values ...string) *PodBuilder {
	na := b.nodeAffinity()
	na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution, corev1.PreferredSchedulingTerm{
		Weight:     weight,
		Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}}},
	})
	return b
}

// AntiAffinity adds a required pod anti-affinity term against the pods
// with the given labels in the pod's namespace, over topologyKey.
func (b *PodBuilder) AntiAffinity(topologyKey string, matchLabels map[string]string) *PodBuilder {
	return b.AntiAffinityTerm(corev1.PodAffinityTerm{TopologyKey: topologyKey, LabelSelector: &metav1.LabelSelector{MatchLabels: matchLabels}})
}

// AntiAffinityTerm adds any required pod anti-affinity term.
func (b *PodBuilder) AntiAffinityTerm(t corev1.PodAffinityTerm) *PodBuilder {
	if b.p.Spec.Affinity == nil {
		b.p.Spec.Affinity = &corev1.Affinity{}
	}
	if b.p.Spec.Affinity.PodAntiAffinity == nil {
		b.p.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{}
	}
	a := b.p.Spec.Affinity.PodAntiAffinity
	a.RequiredDuringSchedulingIgnoredDuringExecution = append(a.RequiredDuringSchedulingIgnoredDuringExecution, t)
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
