package failedpods_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

func TestRemoveFailedPods(t *testing.T) {
	job := func(name string) *ct.PodBuilder {
		return ct.Pod("batch", name).On("n1").OwnedBy("Job", "report").CreatedAgo(2 * time.Hour)
	}
	tests := []struct {
		name   string
		pods   []any
		policy string
		want   []string
		reason string
	}{
		{
			name: "every failed pod older than an hour by default",
			pods: []any{job("oom").Failed("", "OOMKilled", 137), job("young").Failed("", "Error", 1).CreatedAgo(10 * time.Minute),
				job("running")},
			policy: "{}",
			want:   []string{"batch/oom"},
			reason: "failed (container app OOMKilled, container app exited with code 137), 2h0m0s old (minPodLifetimeSeconds 3600)",
		},
		{
			name:   "reasons: the pod's status reason or a container's",
			pods:   []any{job("evicted").Failed("Evicted", "", 0), job("affinity").Failed("NodeAffinity", "", 0), job("oom").Failed("", "OOMKilled", 137)},
			policy: "{reasons: [NodeAffinity, OOMKilled]}",
			want:   []string{"batch/affinity", "batch/oom"},
		},
		{
			name:   "exitCodes",
			pods:   []any{job("killed").Failed("", "Error", 137), job("error").Failed("", "Error", 1)},
			policy: "{exitCodes: [137]}",
			want:   []string{"batch/killed"},
		},
		{
			name:   "reasons and exitCodes must both match",
			pods:   []any{job("oom").Failed("", "OOMKilled", 137), job("error").Failed("", "Error", 137)},
			policy: "{reasons: [OOMKilled], exitCodes: [137]}",
			want:   []string{"batch/oom"},
		},
		{
			name: "init containers' reasons count with includingInitContainers",
			pods: []any{job("init").Failed("", "", 0).Edit(func(p *corev1.Pod) {
				p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "init",
					State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "OOMKilled", ExitCode: 137}}}}
			})},
			policy: "{reasons: [OOMKilled], includingInitContainers: true}",
			want:   []string{"batch/init"},
		},
		{
			name: "without includingInitContainers they do not",
			pods: []any{job("init").Failed("", "", 0).Edit(func(p *corev1.Pod) {
				p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "init",
					State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "OOMKilled", ExitCode: 137}}}}
			})},
			policy: "{reasons: [OOMKilled]}",
		},
		{
			name:   "excludeOwnerKinds",
			pods:   []any{job("job-pod").Failed("", "Error", 1), ct.Pod("batch", "rs-pod").On("n1").OwnedBy("ReplicaSet", "x").CreatedAgo(2*time.Hour).Failed("", "Error", 1)},
			policy: "{excludeOwnerKinds: [Job]}",
			want:   []string{"batch/rs-pod"},
		},
		{
			name:   "minPodLifetimeSeconds",
			pods:   []any{job("old").Failed("", "Error", 1), job("young").Failed("", "Error", 1).CreatedAgo(5 * time.Minute)},
			policy: "{minPodLifetimeSeconds: 60}",
			want:   []string{"batch/old", "batch/young"},
		},
		{
			// The descheduler keeps a failed pod only while it is younger
			// than the minimum, counted in whole seconds.
			name: "a pod exactly minPodLifetimeSeconds old is old enough",
			pods: []any{job("sixty").Failed("", "Error", 1).CreatedAgo(60 * time.Second),
				job("fifty-nine").Failed("", "Error", 1).CreatedAgo(59*time.Second + 900*time.Millisecond)},
			policy: "{minPodLifetimeSeconds: 60}",
			want:   []string{"batch/sixty"},
		},
		{
			name:   "minPodLifetimeSeconds 0 keeps no failed pod back",
			pods:   []any{job("just-failed").Failed("", "Error", 1).CreatedAgo(0)},
			policy: "{minPodLifetimeSeconds: 0}",
			want:   []string{"batch/just-failed"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := append([]any{ct.Node("n1"), ct.Node("n2")}, tt.pods...)
			p := strategytest.Plan(t, ct.Snapshot(t, objs...), "strategies:\n  RemoveFailedPods: "+tt.policy+"\n")
			strategytest.Equal(t, "removed", strategytest.Order(p), tt.want)
			for _, m := range p.Moves {
				if m.To != "" {
					t.Errorf("%s has a replacement planned on %q; a failed pod holds no node", m.Pod, m.To)
				}
				// A finished pod holds nothing on its node, but is bound
				// to it: from is its spec.nodeName.
				if m.From != "n1" {
					t.Errorf("%s moves from %q, want n1, the node it is bound to", m.Pod, m.From)
				}
			}
			if tt.reason != "" && len(p.Moves) > 0 && p.Moves[0].Reason != tt.reason {
				t.Errorf("reason %q, want %q", p.Moves[0].Reason, tt.reason)
			}
		})
	}
}

// A failed bare pod is protected like any bare pod, unless the policy
// allows evicting bare pods.
func TestRemoveFailedBarePods(t *testing.T) {
	objs := []any{ct.Node("n1"), ct.Pod("default", "debug").On("n1").CreatedAgo(2*time.Hour).Failed("", "Error", 1)}
	p := strategytest.Plan(t, ct.Snapshot(t, objs...), "strategies:\n  RemoveFailedPods: {}\n")
	if len(p.Moves) != 0 || len(p.Skipped) != 1 || !strings.Contains(p.Skipped[0].Reason, "bare pod") {
		t.Errorf("moves %v, skipped %+v; want none and the bare pod skipped", strategytest.Moves(p), p.Skipped)
	}
	p = strategytest.Plan(t, ct.Snapshot(t, objs...), "evictable: {barePods: true}\nstrategies:\n  RemoveFailedPods: {}\n")
	strategytest.Equal(t, "removed", strategytest.Order(p), []string{"default/debug"})
}
