package topologyspread_test

import (
	"testing"

	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
	"github.com/kube-rebalancer/rebalancer/strategies/topologyspread"
)

// constraints defaults to DoNotSchedule, the hard constraints.
func TestArgumentDefaults(t *testing.T) {
	p := strategytest.Load(t, "strategies:\n  RemovePodsViolatingTopologySpreadConstraint: {}\n")
	if got := p.Global().Strategies.Get(topologyspread.Name).(*topologyspread.Args).Constraints; len(got) != 1 || got[0] != topologyspread.DoNotSchedule {
		t.Errorf("constraints = %v, want [DoNotSchedule]", got)
	}
}
