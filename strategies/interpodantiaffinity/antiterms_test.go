package interpodantiaffinity

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// Replicas share their anti-affinity terms, and a pod takes the previous
// pod's parsed terms when they are the very same; a term without
// namespaces means its own pod's namespace, so that two namespaces sharing
// the terms' object must not share the parse.
func TestAntiTermsOfSharedTermsKeepTheirNamespace(t *testing.T) {
	terms := []corev1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
		TopologyKey:   "kubernetes.io/hostname",
	}}
	pod := func(namespace string, terms []corev1.PodAffinityTerm) *cluster.Pod {
		return &cluster.Pod{Pod: &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace},
			Spec:       corev1.PodSpec{Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}}},
		}}
	}
	in := &framework.Cycle{}
	tests := []struct {
		name          string
		pod           *cluster.Pod
		wantNamespace string
	}{
		{"the first pod", pod("shop", terms), "shop"},
		{"a replica sharing the terms", pod("shop", terms), "shop"},
		{"a pod of another namespace sharing the terms", pod("blog", terms), "blog"},
		{"a pod with equal terms of its own", pod("shop", slices.Clone(terms)), "shop"},
	}
	for _, tt := range tests {
		got := parseAntiTerms(in, tt.pod)
		if len(got) != 1 || !slices.Equal(got[0].query.Namespaces, []string{tt.wantNamespace}) {
			t.Errorf("%s: terms %+v, want one term of namespace %s", tt.name, got, tt.wantNamespace)
		}
	}
}
