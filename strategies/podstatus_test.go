package strategies_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

func web(name string) *ct.PodBuilder {
	return ct.Pod("shop", name).On("n1").Requests("100m", "").Deployment("web")
}

func TestRemovePodsHavingTooManyRestarts(t *testing.T) {
	tests := []struct {
		name   string
		pods   []any
		policy string
		want   []string // pods, in the order they move
		reason string
	}{
		{
			// The docs' example: a crash-looping pod.
			name:   "a crash-looping pod past the threshold moves",
			pods:   []any{web("crashing").Restarts(12).Waiting("CrashLoopBackOff"), web("healthy").Restarts(2)},
			policy: "{podRestartThreshold: 10}",
			want:   []string{"shop/crashing"},
			reason: "restarted 12 times (threshold 10)",
		},
		{
			name:   "the threshold itself counts, as in the descheduler",
			pods:   []any{web("at").Restarts(10), web("below").Restarts(9)},
			policy: "{podRestartThreshold: 10}",
			want:   []string{"shop/at"},
		},
		{
			name:   "the most restarted go first",
			pods:   []any{web("a").Restarts(11), web("b").Restarts(40), web("c").Restarts(20)},
			policy: "{podRestartThreshold: 10}",
			want:   []string{"shop/b", "shop/c", "shop/a"},
		},
		{
			name:   "init containers count only with includingInitContainers",
			pods:   []any{web("init").Restarts(4).InitRestarts(8)},
			policy: "{podRestartThreshold: 10}",
		},
		{
			name:   "includingInitContainers adds their restarts",
			pods:   []any{web("init").Restarts(4).InitRestarts(8)},
			policy: "{podRestartThreshold: 10, includingInitContainers: true}",
			want:   []string{"shop/init"},
		},
		{
			name:   "states: only pods in CrashLoopBackOff",
			pods:   []any{web("crashing").Restarts(12).Waiting("CrashLoopBackOff"), web("recovered").Restarts(30)},
			policy: "{podRestartThreshold: 10, states: [CrashLoopBackOff]}",
			want:   []string{"shop/crashing"},
			reason: "restarted 12 times (threshold 10), container app is waiting in CrashLoopBackOff",
		},
		{
			name:   "states: only Running pods",
			pods:   []any{web("crashing").Restarts(12).Waiting("CrashLoopBackOff").Phase(corev1.PodPending), web("recovered").Restarts(30)},
			policy: "{podRestartThreshold: 10, states: [Running]}",
			want:   []string{"shop/recovered"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := append([]any{ct.Node("n1"), ct.Node("n2"), ct.DeploymentReplicaSet("shop", "web")}, tt.pods...)
			// The pods share a Deployment, whose own budget keeps the last
			// Ready one while another is pending: the selection alone here.
			p := plan(t, ct.Snapshot(t, objs...), "implicitBudgets: false\nstrategies:\n  RemovePodsHavingTooManyRestarts: "+tt.policy+"\n")
			equal(t, "moved, in order", order(p), tt.want)
			if tt.reason != "" && len(p.Moves) > 0 && p.Moves[0].Reason != tt.reason {
				t.Errorf("reason %q, want %q", p.Moves[0].Reason, tt.reason)
			}
		})
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
			pods:   []any{web("day-old").CreatedAgo(25 * time.Hour), web("young").CreatedAgo(time.Hour), web("week-old").CreatedAgo(7 * 24 * time.Hour)},
			policy: "{maxPodLifeTimeSeconds: 86400}",
			want:   []string{"shop/week-old", "shop/day-old"},
			reason: "age 168h0m0s is past maxPodLifeTimeSeconds 86400 (24h0m0s)",
		},
		{
			name:   "a pod exactly at its lifetime stays",
			pods:   []any{web("exactly").CreatedAgo(24 * time.Hour)},
			policy: "{maxPodLifeTimeSeconds: 86400}",
		},
		{
			name: "states: a pod stuck creating its container",
			pods: []any{web("stuck").CreatedAgo(2 * time.Hour).Phase(corev1.PodPending).Scheduled().Waiting("ContainerCreating"),
				web("running").CreatedAgo(2 * time.Hour)},
			policy: "{maxPodLifeTimeSeconds: 600, states: [ContainerCreating]}",
			want:   []string{"shop/stuck"},
			reason: "age 2h0m0s is past maxPodLifeTimeSeconds 600 (10m0s), container app is waiting in ContainerCreating",
		},
		{
			name: "states: a phase",
			pods: []any{web("pending").CreatedAgo(2 * time.Hour).Phase(corev1.PodPending).Scheduled(),
				web("running").CreatedAgo(2 * time.Hour)},
			policy: "{maxPodLifeTimeSeconds: 600, states: [Pending]}",
			want:   []string{"shop/pending"},
		},
		{
			name: "a finished pod is removed from the node it is bound to, and nothing is placed",
			pods: []any{web("done").CreatedAgo(48 * time.Hour).Phase(corev1.PodSucceeded),
				web("failed").CreatedAgo(30*time.Hour).Failed("", "Error", 1)},
			policy: "{maxPodLifeTimeSeconds: 86400}",
			want:   []string{"shop/done", "shop/failed"},
			moves:  []string{"shop/done n1→", "shop/failed n1→"},
		},
		{
			// The descheduler's states include the reasons a container
			// terminated with.
			name:   "states: a container terminated OOMKilled",
			pods:   []any{web("oom").CreatedAgo(2*time.Hour).Failed("", "OOMKilled", 137), web("error").CreatedAgo(2*time.Hour).Failed("", "Error", 1)},
			policy: "{states: [OOMKilled]}",
			want:   []string{"shop/oom"},
			reason: "container app terminated with OOMKilled",
		},
		{
			name: "states: ephemeral containers count only with includingEphemeralContainers",
			pods: []any{web("debugged").CreatedAgo(2 * time.Hour).Edit(func(p *corev1.Pod) {
				p.Status.EphemeralContainerStatuses = []corev1.ContainerStatus{{Name: "debugger",
					State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff"}}}}
			})},
			policy: "{states: [ImagePullBackOff]}",
		},
		{
			name: "states: includingEphemeralContainers adds them",
			pods: []any{web("debugged").CreatedAgo(2 * time.Hour).Edit(func(p *corev1.Pod) {
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
				web("done-long-ago").CreatedAgo(6 * time.Hour).Phase(corev1.PodSucceeded).Edit(completedAgo(5 * time.Hour)),
				web("done-lately").CreatedAgo(6 * time.Hour).Phase(corev1.PodSucceeded).Edit(completedAgo(time.Hour)),
				web("running").CreatedAgo(6 * time.Hour),
			},
			policy: "{states: [Succeeded], conditions: [{reason: PodCompleted, status: \"True\", minTimeSinceLastTransitionSeconds: 14400}]}",
			want:   []string{"shop/done-long-ago"},
			reason: "phase Succeeded, condition Initialized=True (PodCompleted) for 5h0m0s",
		},
		{
			name:   "exitCodes: a container that exited with one of the codes",
			pods:   []any{web("killed").CreatedAgo(2*time.Hour).Failed("", "Error", 137), web("error").CreatedAgo(2*time.Hour).Failed("", "Error", 1)},
			policy: "{exitCodes: [137]}",
			want:   []string{"shop/killed"},
			reason: "container app exited with code 137",
		},
		{
			name: "ownerKinds: include",
			pods: []any{web("web-old").CreatedAgo(48 * time.Hour),
				ct.Pod("shop", "job-old").On("n1").OwnedBy("Job", "report").CreatedAgo(48 * time.Hour).Phase(corev1.PodSucceeded)},
			policy: "{maxPodLifeTimeSeconds: 86400, ownerKinds: {include: [Job]}}",
			want:   []string{"shop/job-old"},
		},
		{
			name: "ownerKinds: exclude",
			pods: []any{web("web-old").CreatedAgo(48 * time.Hour),
				ct.Pod("shop", "job-old").On("n1").OwnedBy("Job", "report").CreatedAgo(48 * time.Hour).Phase(corev1.PodSucceeded)},
			policy: "{maxPodLifeTimeSeconds: 86400, ownerKinds: {exclude: [Job]}}",
			want:   []string{"shop/web-old"},
		},
		{
			// Without a creation time a pod would count as 2,562,047
			// hours old.
			name:    "a pod whose age is unknown is skipped, not evicted",
			pods:    []any{web("ageless").Edit(func(p *corev1.Pod) { p.CreationTimestamp = metav1.Time{} })},
			policy:  "{maxPodLifeTimeSeconds: 86400}",
			skipped: []string{"shop/ageless protected: its age is unknown: metadata.creationTimestamp is not set, so maxPodLifeTimeSeconds cannot be compared"},
		},
		{
			name:   "labelSelector limits the strategy",
			pods:   []any{web("old").CreatedAgo(48 * time.Hour), web("old-cache").CreatedAgo(48*time.Hour).Label("component", "cache")},
			policy: "{maxPodLifeTimeSeconds: 86400, labelSelector: {matchLabels: {component: cache}}}",
			want:   []string{"shop/old-cache"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := append([]any{ct.Node("n1"), ct.Node("n2"), ct.DeploymentReplicaSet("shop", "web")}, tt.pods...)
			p := plan(t, ct.Snapshot(t, objs...), "strategies:\n  PodLifeTime: "+tt.policy+"\n")
			equal(t, "moved, in order", order(p), tt.want)
			if tt.moves != nil {
				equal(t, "moves", moves(p), tt.moves)
			}
			var skipped []string
			for _, k := range p.Skipped {
				skipped = append(skipped, fmt.Sprintf("%s %s: %s", k.Pod, k.Category, k.Reason))
			}
			equal(t, "skipped", skipped, tt.skipped)
			if tt.reason != "" && len(p.Moves) > 0 && p.Moves[0].Reason != tt.reason {
				t.Errorf("reason %q, want %q", p.Moves[0].Reason, tt.reason)
			}
		})
	}
}

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
			p := plan(t, ct.Snapshot(t, objs...), "strategies:\n  RemoveFailedPods: "+tt.policy+"\n")
			equal(t, "removed", order(p), tt.want)
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
	p := plan(t, ct.Snapshot(t, objs...), "strategies:\n  RemoveFailedPods: {}\n")
	if len(p.Moves) != 0 || len(p.Skipped) != 1 || !strings.Contains(p.Skipped[0].Reason, "bare pod") {
		t.Errorf("moves %v, skipped %+v; want none and the bare pod skipped", moves(p), p.Skipped)
	}
	p = plan(t, ct.Snapshot(t, objs...), "evictable: {barePods: true}\nstrategies:\n  RemoveFailedPods: {}\n")
	equal(t, "removed", order(p), []string{"default/debug"})
}

// completedAgo sets the Initialized condition the kubelet leaves on a pod
// whose containers completed (True, reason PodCompleted), changed the given
// time before the test's now.
func completedAgo(d time.Duration) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodInitialized, Status: corev1.ConditionTrue,
			Reason: "PodCompleted", LastTransitionTime: metav1.NewTime(ct.Now.Add(-d))})
	}
}
