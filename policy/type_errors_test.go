package policy

import "testing"

func TestDescribeTypeError(t *testing.T) {
	tests := []struct{ decoder, want string }{
		{"json: cannot unmarshal string into Go struct field Limits.limits.perNode of type int32", "limits.perNode: a string where a whole number is expected"},
		{"cannot unmarshal number into Go struct field Evictable.evictable.minPodAge of type *v1.Duration", "evictable.minPodAge: a number where a duration such as 5m is expected"},
		{"cannot unmarshal string into Go struct field PodLifeTimeArgs.strategies.PodLifeTime.states of type []string", "strategies.PodLifeTime.states: a string where a list is expected"},
		{"cannot unmarshal array into Go struct field RebalancePolicy.strategies of type policy.Strategies", "strategies: an array where an object is expected"},
		{"cannot unmarshal bool into Go struct field Common.strategies.PodLifeTime.namespaces of type policy.Namespaces", "strategies.PodLifeTime.namespaces: true or false where an object is expected"},
		{"cannot unmarshal string into Go value of type policy.RebalancePolicy", "the policy: a string where an object is expected"},
		{"yaml: line 3: mapping values are not allowed in this context", "yaml: line 3: mapping values are not allowed in this context"},
	}
	for _, tt := range tests {
		if got := describeTypeError(tt.decoder); got != tt.want {
			t.Errorf("describeTypeError(%q)\n got %q\nwant %q", tt.decoder, got, tt.want)
		}
	}
}
