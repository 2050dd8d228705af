package failedpods_test

import (
	"testing"

	"github.com/kube-rebalancer/rebalancer/strategies/failedpods"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

// minPodLifetimeSeconds defaults to an hour.
func TestArgumentDefaults(t *testing.T) {
	p := strategytest.Load(t, "strategies:\n  RemoveFailedPods: {}\n")
	if got := p.Global().Strategies.Get(failedpods.Name).(*failedpods.Args).MinPodLifetimeSeconds; got == nil || *got != 3600 {
		t.Errorf("minPodLifetimeSeconds = %v, want 3600", got)
	}
}
