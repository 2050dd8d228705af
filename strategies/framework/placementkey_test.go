package framework

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// Pods share a placement table only when their node selector, required node
// affinity and tolerations are the same: the key must tell apart any two
// that differ, however their strings could run into one another.
func TestPlacementKeyTellsSpecsApart(t *testing.T) {
	seconds := func(s int64) *int64 { return &s }
	gpu := corev1.Toleration{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	zoneA := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"zone-a"}}}}}}
	zoneB := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"zone-b"}}}}}}
	type spec struct {
		selector    map[string]string
		required    *corev1.NodeSelector
		tolerations []corev1.Toleration
	}
	tests := []struct {
		name string
		a, b spec
		same bool
	}{
		{name: "the same selector, in any order", same: true,
			a: spec{selector: map[string]string{"pool": "web", "disk": "ssd"}},
			b: spec{selector: map[string]string{"disk": "ssd", "pool": "web"}}},
		{name: "a key and value that run into one another",
			a: spec{selector: map[string]string{"ab": "c"}},
			b: spec{selector: map[string]string{"a": "bc"}}},
		{name: "a selector against none",
			a: spec{selector: map[string]string{"pool": "web"}}},
		{name: "required affinity on another zone",
			a: spec{required: zoneA}, b: spec{required: zoneB}},
		{name: "required affinity against none", a: spec{required: zoneA}},
		{name: "the same tolerations", same: true,
			a: spec{tolerations: []corev1.Toleration{gpu}}, b: spec{tolerations: []corev1.Toleration{gpu}}},
		{name: "a toleration for a while against for ever",
			a: spec{tolerations: []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: seconds(300)}}},
			b: spec{tolerations: []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}}}},
		{name: "a toleration's value against its key",
			a: spec{tolerations: []corev1.Toleration{{Key: "kv", Operator: corev1.TolerationOpEqual}}},
			b: spec{tolerations: []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpEqual, Value: "v"}}}},
		{name: "a toleration against none", a: spec{tolerations: []corev1.Toleration{gpu}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := string(placementKey(nil, tc.a.selector, tc.a.required, tc.a.tolerations))
			b := string(placementKey(nil, tc.b.selector, tc.b.required, tc.b.tolerations))
			if (a == b) != tc.same {
				t.Errorf("keys %q and %q: same %v, want %v", a, b, a == b, tc.same)
			}
		})
	}
}
