package nodeutilization

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// One selector implies another exactly when every label set the first
// admits, the second selects.
func TestSelectorImplication(t *testing.T) {
	sel := func(y string) *metav1.LabelSelector {
		var s metav1.LabelSelector
		if err := yaml.UnmarshalStrict([]byte(y), &s); err != nil {
			t.Fatal(err)
		}
		return &s
	}
	tests := []struct {
		a, b string
		want bool
	}{
		{"{matchLabels: {pool: gpu, zone: a}}", "{matchLabels: {pool: gpu}}", true},
		{"{matchLabels: {pool: gpu}}", "{matchLabels: {pool: gpu, zone: a}}", false},
		{"{}", "{matchLabels: {pool: gpu}}", false},
		{"{matchLabels: {pool: gpu}}", "{}", true},
		{"{matchLabels: {pool: gpu}}", "{matchExpressions: [{key: pool, operator: Exists}]}", true},
		{"{matchLabels: {pool: gpu}}", "{matchExpressions: [{key: pool, operator: In, values: [gpu, cpu]}]}", true},
		{"{matchExpressions: [{key: pool, operator: In, values: [gpu, cpu]}]}", "{matchLabels: {pool: gpu}}", false},
		{"{matchExpressions: [{key: pool, operator: In, values: [gpu, cpu]}, {key: pool, operator: NotIn, values: [cpu]}]}", "{matchLabels: {pool: gpu}}", true},
		{"{matchLabels: {pool: gpu}}", "{matchExpressions: [{key: pool, operator: NotIn, values: [cpu]}]}", true},
		{"{matchExpressions: [{key: pool, operator: DoesNotExist}]}", "{matchExpressions: [{key: pool, operator: NotIn, values: [cpu]}]}", true},
		{"{matchExpressions: [{key: pool, operator: NotIn, values: [cpu, gpu]}]}", "{matchExpressions: [{key: pool, operator: NotIn, values: [cpu]}]}", true},
		{"{matchExpressions: [{key: pool, operator: NotIn, values: [cpu]}]}", "{matchExpressions: [{key: pool, operator: NotIn, values: [cpu, gpu]}]}", false},
		{"{matchExpressions: [{key: pool, operator: NotIn, values: [cpu]}]}", "{matchExpressions: [{key: pool, operator: DoesNotExist}]}", false},
	}
	for _, tt := range tests {
		if got := selectorConstraints(sel(tt.a)).implies(sel(tt.b)); got != tt.want {
			t.Errorf("%s implies %s = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
