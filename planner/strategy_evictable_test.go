package planner

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// The same pod, proposed by two strategies: each checks it against its own
// evictable settings, so one may move it while the other must leave it.
func TestEvictabilityFollowsTheStrategy(t *testing.T) {
	const (
		restarts = "RemovePodsHavingTooManyRestarts"
		lifetime = "PodLifeTime"
	)
	emptyDir := corev1.Volume{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	localStorage := "protected: uses local storage (emptyDir or hostPath), which eviction would lose; allow with evictable.localStorage"
	tests := []struct {
		name   string
		policy string
		pod    *ct.PodBuilder
		// what becomes of the pod when each strategy proposes it: "moved",
		// or the skip
		want map[string]string
	}{
		{
			name: "local storage allowed for one strategy",
			policy: `strategies:
  RemovePodsHavingTooManyRestarts:
    podRestartThreshold: 10
    evictable: {localStorage: true}
  PodLifeTime: {maxPodLifeTimeSeconds: 3600}
`,
			pod:  ct.Pod("shop", "web-1").Volume(emptyDir),
			want: map[string]string{restarts: "moved", lifetime: localStorage},
		},
		{
			name: "the strategy's setting wins over the override's",
			policy: `strategies:
  RemovePodsHavingTooManyRestarts:
    podRestartThreshold: 10
    evictable: {localStorage: false}
  PodLifeTime: {maxPodLifeTimeSeconds: 3600}
overrides:
- namespaces: [shop]
  evictable: {localStorage: true}
`,
			pod:  ct.Pod("shop", "web-1").Volume(emptyDir),
			want: map[string]string{restarts: localStorage, lifetime: "moved"},
		},
		{
			name: "an override tunes the strategy's own setting",
			policy: `strategies:
  RemovePodsHavingTooManyRestarts:
    podRestartThreshold: 10
    evictable: {minPodAge: 2h}
  PodLifeTime: {maxPodLifeTimeSeconds: 3600}
overrides:
- namespaces: [shop]
  strategies:
    PodLifeTime:
      evictable: {minPodAge: 30m}
`,
			pod: ct.Pod("shop", "web-1").CreatedAgo(time.Hour),
			want: map[string]string{restarts: "protected: younger than evictable.minPodAge (1h0m0s < 2h0m0s)",
				lifetime: "moved"},
		},
		{
			name: "a label selector for one strategy",
			policy: `evictable: {labelSelector: {matchLabels: {movable: "yes"}}}
strategies:
  RemovePodsHavingTooManyRestarts:
    podRestartThreshold: 10
    evictable: {labelSelector: {}}
  PodLifeTime: {maxPodLifeTimeSeconds: 3600}
`,
			pod:  ct.Pod("shop", "web-1"),
			want: map[string]string{restarts: "moved", lifetime: "protected: not selected by evictable.labelSelector"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.pod.On("n1").Requests("100m", "64Mi").Deployment("web").Obj()
			snap := ct.Snapshot(t, ct.Node("n1"), ct.Node("n2"), ct.DeploymentReplicaSet("shop", "web"), p)
			pol := loadPolicy(t, tt.policy)
			for strategy, want := range tt.want {
				c := (&Planner{Policy: pol, Placer: newEngine(t)}).newCycle(snap)
				pod := c.snap.Pod("shop/web-1")
				got := "moved"
				if why := c.Evictable(strategy, pod); why != "" {
					got = "evictable: " + why
				}
				if o := c.Move(strategy, framework.Candidate{Pod: pod, Reason: "test"}); !o.Moved {
					got = string(o.Category) + ": " + o.Reason
				}
				if got != want {
					t.Errorf("proposed by %s: %s, want %s", strategy, got, want)
				}
			}
		})
	}
}
