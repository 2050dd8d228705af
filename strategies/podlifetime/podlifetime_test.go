package podlifetime_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

// completedAgo sets the Initialized condition the kubelet leaves on a pod
// whose containers completed (True, reason PodCompleted), changed the given
// time before the test's now.
func completedAgo(d time.Duration) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodInitialized, Status: corev1.ConditionTrue,
			Reason: "PodCompleted", LastTransitionTime: metav1.NewTime(ct.Now.Add(-d))})
	}
}

func TestPodLifeTime(t *testing.T) {
	tests := []struct {
		name   string
		pods   []any
		policy string
		want   []string // in the order they move
		moves  []string // when set: "pod from→to" of every move, sorted
		reason string
		// skipped: "pod category: reason" of every skipped pod
		skipped []string
	}{
		{
			// The docs' example: pods past their lifetime move, oldest
			// first, so that limits spend evictions on the oldest.
			name:   "pods past their lifetime move, oldest first",
			pods:   []any{strategytest.Web("day-old").CreatedAgo(25 * time.Hour), strategytest.Web("young").CreatedAgo(time.Hour), strategytest.Web("week-old").CreatedAgo(7 * 24 * time.Hour)},
			policy: "{maxPodLifeTimeSeconds: 86400}",
			want:   []string{"shop/week-old", "shop/day-old"},
			reason: "age 168h0m0s is past maxPodLifeTimeSeconds 86400 (24h0m0s)",
		},
		{
			name:   "a pod exactly at its lifetime stays",
			pods:   []any{strategytest.Web("exactly").CreatedAgo(24 * time.Hour)},
			policy: "{maxPodLifeTimeSeconds: 86400}",
		},
		{
			name: "states: a pod stuck creating its container",
			pods: []any{strategytest.Web("stuck").CreatedAgo(2 * time.Hour).Phase(corev1.PodPending).Scheduled().Waiting("ContainerCreating"),
				strategytest.Web("running").CreatedAgo(2 * time.Hour)},
			policy: "{maxPodLifeTimeSeconds: 600, states: [ContainerCreating]}",
			want:   []string{"shop/stuck"},
			reason: "age 2h0m0s is past maxPodLifeTimeSeconds 600 (10m0s), container app is waiting in ContainerCreating",
		},
		{
			name: "states: a phase",
			pods: []any{strategytest.Web("pending").CreatedAgo(2 * time.Hour).Phase(corev1.PodPending).Scheduled(),
				strategytest.Web("running").CreatedAgo(2 * time.Hour)},
			policy: "{maxPodLifeTimeSeconds: 600, states: [Pending]}",
			want:   []string{"shop/pending"},
		},
		{
			name: "a finished pod is removed from the node it is bound to, and nothing is placed",
			pods: []any{strategytest.Web("done").CreatedAgo(48 * time.Hour).Phase(corev1.PodSucceeded),
				strategytest.Web("failed").CreatedAgo(30*time.Hour).Failed("", "Error", 1)},
			policy: "{maxPodLifeTimeSeconds: 86400}",
			want:   []string{"shop/done", "shop/failed"},
			moves:  []string{"shop/done n1→", "shop/failed n1→"},
		},
		{
			// The descheduler's states include the reasons a container
			// terminated with.
			name:   "states: a container terminated OOMKilled",
			pods:   []any{strategytest.Web("oom").CreatedAgo(2*time.Hour).Failed("", "OOMKilled", 137), strategytest.Web("error").CreatedAgo(2*time.Hour).Failed("", "Error", 1)},
			policy: "{states: [OOMKilled]}",
			want:   []string{"shop/oom"},
			reason: "container app terminated with OOMKilled",
		},
		{
			name: "states: ephemeral containers count only with includingEphemeralContainers",
			pods: []any{strategytest.Web("debugged").CreatedAgo(2 * time.Hour).Edit(func(p *corev1.Pod) {
				p.Status.EphemeralContainerStatuses = []corev1.ContainerStatus{{Name: "debugger",
					State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff"}}}}
			})},
			policy: "{states: [ImagePullBackOff]}",
		},
		{
			name: "states: includingEphemeralContainers adds them",
			pods: []any{strategytest.Web("debugged").CreatedAgo(2 * time.Hour).Edit(func(p *corev1.Pod) {
				p.Status.EphemeralContainerStatuses = []corev1.ContainerStatus{{Name: "debugger",
					State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff"}}}}
			})},
			policy: "{states: [ImagePullBackOff], includingEphemeralContainers: true}",
			want:   []string{"shop/debugged"},
			reason: "container debugger is waiting in ImagePullBackOff",
		},
		{
			// The descheduler's example: Succeeded pods whose PodCompleted
			// condition is four hours old.
			name: "conditions: a condition that changed long enough ago",
			pods: []any{
				strategytest.Web("done-long-ago").CreatedAgo(6 * time.Hour).Phase(corev1.PodSucceeded).Edit(completedAgo(5 * time.Hour)),
				strategytest.Web("done-lately").CreatedAgo(6 * time.Hour).Phase(corev1.PodSucceeded).Edit(completedAgo(time.Hour)),
				strategytest.Web("running").CreatedAgo(6 * time.Hour),
			},
			policy: "{states: [Succeeded], conditions: [{reason: PodCompleted, status: \"True\", minTimeSinceLastTransitionSeconds: 14400}]}",
			want:   []string{"shop/done-long-ago"},
			reason: "phase Succeeded, condition Initialized=True (PodCompleted) for 5h0m0s",
		},
		{
			name:   "exitCodes: a container that exited with one of the codes",
			pods:   []any{strategytest.Web("killed").CreatedAgo(2*time.Hour).Failed("", "Error", 137), strategytest.Web("error").CreatedAgo(2*time.Hour).Failed("", "Error", 1)},
			policy: "{exitCodes: [137]}",
			want:   []string{"shop/killed"},
			reason: "container app exited with code 137",
		},
		{
			name: "ownerKinds: include",
			pods: []any{strategytest.Web("web-old").CreatedAgo(48 * time.Hour),
				ct.Pod("shop", "job-old").On("n1").OwnedBy("Job", "report").CreatedAgo(48 * time.Hour).Phase(corev1.PodSucceeded)},
			policy: "{maxPodLifeTimeSeconds: 86400, ownerKinds: {include: [Job]}}",
			want:   []string{"shop/job-old"},
		},
		{
			name: "ownerKinds: exclude",
			pods: []any{strategytest.Web("web-old").CreatedAgo(48 * time.Hour),
				ct.Pod("shop", "job-old").On("n1").OwnedBy("Job", "report").CreatedAgo(48 * time.Hour).Phase(corev1.PodSucceeded)},
			policy: "{maxPodLifeTimeSeconds: 86400, ownerKinds: {exclude: [Job]}}",
			want:   []string{"shop/web-old"},
		},
		{
			// Without a creation time a pod would count as 2,562,047
			// hours old.
			name:    "a pod whose age is unknown is skipped, not evicted",
			pods:    []any{strategytest.Web("ageless").Edit(func(p *corev1.Pod) { p.CreationTimestamp = metav1.Time{} })},
			policy:  "{maxPodLifeTimeSeconds: 86400}",
			skipped: []string{"shop/ageless protected: its age is unknown: metadata.creationTimestamp is not set, so maxPodLifeTimeSeconds cannot be compared"},
		},
		{
			name:   "labelSelector limits the strategy",
			pods:   []any{strategytest.Web("old").CreatedAgo(48 * time.Hour), strategytest.Web("old-cache").CreatedAgo(48*time.Hour).Label("component", "cache")},
			policy: "{maxPodLifeTimeSeconds: 86400, labelSelector: {matchLabels: {component: cache}}}",
			want:   []string{"shop/old-cache"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := append([]any{ct.Node("n1"), ct.Node("n2"), ct.DeploymentReplicaSet("shop", "web")}, tt.pods...)
			p := strategytest.Plan(t, ct.Snapshot(t, objs...), "strategies:\n  PodLifeTime: "+tt.policy+"\n")
			strategytest.Equal(t, "moved, in order", strategytest.Order(p), tt.want)
			if tt.moves != nil {
				strategytest.Equal(t, "moves", strategytest.Moves(p), tt.moves)
			}
			var skipped []string
			for _, k := range p.Skipped {
				skipped = append(skipped, fmt.Sprintf("%s %s: %s", k.Pod, k.Category, k.Reason))
			}
			strategytest.Equal(t, "skipped", skipped, tt.skipped)
			if tt.reason != "" && len(p.Moves) > 0 && p.Moves[0].Reason != tt.reason {
				t.Errorf("reason %q, want %q", p.Moves[0].Reason, tt.reason)
			}
		})
	}
}
