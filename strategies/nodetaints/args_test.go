package nodetaints_test

import (
	"testing"

	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
	"github.com/kube-rebalancer/rebalancer/strategies/nodetaints"
)

// includePreferNoSchedule defaults to false.
func TestArgumentDefaults(t *testing.T) {
	p := strategytest.Load(t, "strategies:\n  RemovePodsViolatingNodeTaints: {}\n")
	if p.Global().Strategies.Get(nodetaints.Name).(*nodetaints.Args).IncludesPreferNoSchedule() {
		t.Error("includePreferNoSchedule defaults to true, want false")
	}
}

// Taint matching: "key" matches every value of the key, "key=value" one
// value; PreferNoSchedule only when included; NoExecute never.
func TestTaintArguments(t *testing.T) {
	a := &nodetaints.Args{ExcludedTaints: []string{"dedicated", "zone=a"}}
	tests := []struct {
		key, value, effect string
		want               bool
	}{
		{"dedicated", "gpu", "NoSchedule", false},
		{"zone", "a", "NoSchedule", false},
		{"zone", "b", "NoSchedule", true},
		{"other", "", "NoSchedule", true},
		{"other", "", "PreferNoSchedule", false},
		{"other", "", "NoExecute", false},
	}
	for _, tt := range tests {
		if got := a.Considers(tt.key, tt.value, tt.effect); got != tt.want {
			t.Errorf("Considers(%s=%s:%s) = %v, want %v", tt.key, tt.value, tt.effect, got, tt.want)
		}
	}
	in := &nodetaints.Args{IncludedTaints: []string{"dedicated=gpu"}, IncludePreferNoSchedule: new(true)}
	if !in.Considers("dedicated", "gpu", "PreferNoSchedule") || in.Considers("dedicated", "infra", "NoSchedule") {
		t.Error("includedTaints dedicated=gpu does not select exactly dedicated=gpu")
	}
}
