package clustertest

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeSelectorTerm is a node selector term of one expression, "key op
// values", for RequireNodeAffinity and PreferNodeAffinity.
func NodeSelectorTerm(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}
}

// Selector is a label selector matching labels given as key, value pairs.
func Selector(kv ...string) *metav1.LabelSelector {
	s := &metav1.LabelSelector{MatchLabels: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		s.MatchLabels[kv[i]] = kv[i+1]
	}
	return s
}

// AffinityTerm is a pod affinity term over topologyKey selecting pods in
// the pod's own namespace; set Namespaces or NamespaceSelector on it to
// look further.
func AffinityTerm(topologyKey string, selector *metav1.LabelSelector) corev1.PodAffinityTerm {
	return corev1.PodAffinityTerm{TopologyKey: topologyKey, LabelSelector: selector}
}

// affinity returns the pod's affinity, made empty when it has none.
func (b *PodBuilder) affinity() *corev1.Affinity {
	if b.p.Spec.Affinity == nil {
		b.p.Spec.Affinity = &corev1.Affinity{}
	}
	return b.p.Spec.Affinity
}

func (b *PodBuilder) nodeAffinity() *corev1.NodeAffinity {
	a := b.affinity()
	if a.NodeAffinity == nil {
		a.NodeAffinity = &corev1.NodeAffinity{}
	}
	return a.NodeAffinity
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
	a := b.podAntiAffinity()
	a.RequiredDuringSchedulingIgnoredDuringExecution = append(a.RequiredDuringSchedulingIgnoredDuringExecution, t)
	return b
}

// RequireNodeAffinity sets the pod's required node affinity to the terms,
// any one of which a node must match.
func (b *PodBuilder) RequireNodeAffinity(terms ...corev1.NodeSelectorTerm) *PodBuilder {
	b.nodeAffinity().RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: terms}
	return b
}

// PreferNodeAffinity adds a preferred node affinity term with a weight.
func (b *PodBuilder) PreferNodeAffinity(weight int32, term corev1.NodeSelectorTerm) *PodBuilder {
	na := b.nodeAffinity()
	na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution,
		corev1.PreferredSchedulingTerm{Weight: weight, Preference: term})
	return b
}

func (b *PodBuilder) podAffinity() *corev1.PodAffinity {
	a := b.affinity()
	if a.PodAffinity == nil {
		a.PodAffinity = &corev1.PodAffinity{}
	}
	return a.PodAffinity
}

// RequirePodAffinity adds a required pod affinity term.
func (b *PodBuilder) RequirePodAffinity(t corev1.PodAffinityTerm) *PodBuilder {
	a := b.podAffinity()
	a.RequiredDuringSchedulingIgnoredDuringExecution = append(a.RequiredDuringSchedulingIgnoredDuringExecution, t)
	return b
}

// PreferPodAffinity adds a preferred pod affinity term with a weight.
func (b *PodBuilder) PreferPodAffinity(weight int32, t corev1.PodAffinityTerm) *PodBuilder {
	a := b.podAffinity()
	a.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PreferredDuringSchedulingIgnoredDuringExecution,
		corev1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: t})
	return b
}

// PreferPodAntiAffinity adds a preferred pod anti-affinity term with a
// weight.
func (b *PodBuilder) PreferPodAntiAffinity(weight int32, t corev1.PodAffinityTerm) *PodBuilder {
	a := b.podAntiAffinity()
	a.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PreferredDuringSchedulingIgnoredDuringExecution,
		corev1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: t})
	return b
}

func (b *PodBuilder) podAntiAffinity() *corev1.PodAntiAffinity {
	a := b.affinity()
	if a.PodAntiAffinity == nil {
		a.PodAntiAffinity = &corev1.PodAntiAffinity{}
	}
	return a.PodAntiAffinity
}
