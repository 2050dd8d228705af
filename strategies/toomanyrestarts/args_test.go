package toomanyrestarts_test

import (
	"testing"

	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
	"github.com/kube-rebalancer/rebalancer/strategies/toomanyrestarts"
)

// includingInitContainers defaults to false.
func TestArgumentDefaults(t *testing.T) {
	p := strategytest.Load(t, "strategies:\n  RemovePodsHavingTooManyRestarts: {podRestartThreshold: 5}\n")
	if p.Global().Strategies.Get(toomanyrestarts.Name).(*toomanyrestarts.Args).IncludesInitContainers() {
		t.Error("includingInitContainers defaults to true, want false")
	}
}

// Pod-level arguments overlay field by field per namespace, booleans
// included: an override can turn off what the global policy turns on.
func TestOverridesSetPodLevelArguments(t *testing.T) {
	p := strategytest.Load(t, `
strategies:
  RemovePodsHavingTooManyRestarts: {podRestartThreshold: 10, includingInitContainers: true, states: [CrashLoopBackOff]}
overrides:
- namespaces: [batch]
  strategies:
    RemovePodsHavingTooManyRestarts: {podRestartThreshold: 3, includingInitContainers: false}
`)
	batch := p.For("batch", nil).Strategies.Get("RemovePodsHavingTooManyRestarts").(*toomanyrestarts.Args)
	if batch.PodRestartThreshold != 3 || batch.IncludesInitContainers() || len(batch.States) != 1 {
		t.Errorf("batch = %+v, want threshold 3, no init containers, states inherited", batch)
	}
	web := p.For("web", nil).Strategies.Get("RemovePodsHavingTooManyRestarts").(*toomanyrestarts.Args)
	if web.PodRestartThreshold != 10 || !web.IncludesInitContainers() {
		t.Errorf("web = %+v, want the global threshold 10 with init containers", web)
	}
}
