package strategies_test

import (
	"fmt"
	"testing"
	"time"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

// One policy, two namespaces tuned differently: batch restarts its pods
// sooner, bounds their lifetime, removes failed pods of another reason at
// any age and allows at most four evictions a step; shop keeps the global
// settings.
func TestOverridesTuneStrategiesPerNamespace(t *testing.T) {
	// The pods are of one Deployment, whose own budget would pace them:
	// the limits alone here.
	const policy = `
implicitBudgets: false
strategies:
  RemovePodsHavingTooManyRestarts: {podRestartThreshold: 10}
  PodLifeTime: {maxPodLifeTimeSeconds: 604800}
  RemoveFailedPods: {reasons: [OOMKilled]}
overrides:
- namespaces: [batch]
  limits: {perNamespace: 4}
  strategies:
    RemovePodsHavingTooManyRestarts: {podRestartThreshold: 3, includingInitContainers: true}
    PodLifeTime: {maxPodLifeTimeSeconds: 3600, states: [Running]}
    RemoveFailedPods: {reasons: [Error], minPodLifetimeSeconds: 0}
`
	pod := func(ns, name string) *ct.PodBuilder {
		return ct.Pod(ns, name).On("n1").Requests("100m", "").Deployment("app").CreatedAgo(30 * time.Minute)
	}
	var objs []any
	objs = append(objs, ct.Node("n1"), ct.Node("n2"), ct.DeploymentReplicaSet("shop", "app"), ct.DeploymentReplicaSet("batch", "app"))
	for _, ns := range []string{"shop", "batch"} {
		objs = append(objs,
			pod(ns, "restarts-5").Restarts(5),
			pod(ns, "restarts-12").Restarts(12),
			pod(ns, "init-restarts").Restarts(2).InitRestarts(2),
			pod(ns, "two-hours-old").CreatedAgo(2*time.Hour),
			pod(ns, "failed-oom").CreatedAgo(2*time.Hour).Failed("", "OOMKilled", 137),
			pod(ns, "failed-error").CreatedAgo(10*time.Minute).Failed("", "Error", 1),
		)
	}
	p := strategytest.Plan(t, ct.Snapshot(t, objs...), policy)
	strategytest.Equal(t, "moved, in order", strategytest.Order(p), []string{
		"batch/restarts-12", "shop/restarts-12", "batch/restarts-5", "batch/init-restarts", // the most restarted first
		"batch/two-hours-old",
		"shop/failed-oom",
		"batch/failed-error", // batch's fifth: the next step
	})
	var steps []string
	for _, m := range p.Moves {
		steps = append(steps, fmt.Sprint(m.Step))
	}
	strategytest.Equal(t, "steps", steps, []string{"1", "1", "1", "1", "1", "1", "2"})
	if len(p.Skipped) != 0 {
		t.Errorf("skipped %+v, want none", p.Skipped)
	}
}
