package policy

import "testing"

func TestNearestName(t *testing.T) {
	names := []string{"RemoveDuplicates", "PodLifeTime", "LowNodeUtilization", "HighNodeUtilization", "RemoveFailedPods"}
	tests := []struct {
		typed, want string
	}{
		{"RemoveDuplicate", "RemoveDuplicates"},       // a lost letter
		{"LowNodeUtilisation", "LowNodeUtilization"},  // British spelling
		{"podlifetime", "PodLifeTime"},                // case
		{"HighNodeUtilisaton", "HighNodeUtilization"}, // two slips
		{"RemoveFailedPod", "RemoveFailedPods"},       // not RemoveDuplicates
		{"Balance", ""},                               // nothing close: no guess
		{"LowUtilization", "LowNodeUtilization"},      // a word left out
		{"Utilization", ""},                           // too far to be a slip
	}
	for _, tt := range tests {
		if got := nearestName(tt.typed, names); got != tt.want {
			t.Errorf("nearestName(%q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
}
