package scheduler

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// kube-scheduler 1.36 scores NodeResourcesFit on the containers' own
// requests (with its 100m/200Mi defaults), ignoring pod-level requests,
// while its filter does count them: the differential test against it showed
// a pod with spec.resources placed by that rule.
func TestNodeResourcesFitScoreIgnoresPodLevelRequests(t *testing.T) {
	podLevel := func(p *corev1.Pod) {
		p.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("2Gi")}}
	}
	snap := ct.Snapshot(t, ct.Node("n1"), ct.Node("n2").CPU("8"),
		ct.Pod("a", "with").Edit(podLevel).Edit(pending),
		ct.Pod("a", "without").Edit(pending),
		ct.Pod("a", "too-big").Edit(func(p *corev1.Pod) {
			podLevel(p)
			p.Spec.Resources.Requests[corev1.ResourceCPU] = resource.MustParse("6")
		}).Edit(pending))
	e, err := NewEngine(DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	fitScores := func(pod string) map[string]int64 {
		out := map[string]int64{}
		for _, n := range e.Schedule(snap, snap.Pod(pod), Options{Explain: true}).Nodes {
			if n.Feasible {
				out[n.Name] = n.Scores[NodeResourcesFit]
			}
		}
		return out
	}
	with, without := fitScores("a/with"), fitScores("a/without")
	if len(with) != 2 || with["n1"] != without["n1"] || with["n2"] != without["n2"] {
		t.Errorf("NodeResourcesFit scores with pod-level requests %v, without %v: want equal", with, without)
	}
	// The filter counts the pod-level 6 CPUs: only n2 has them.
	if got := fitScores("a/too-big"); len(got) != 1 || !hasKey(got, "n2") {
		t.Errorf("feasible nodes for a pod-level request of 6 CPUs: %v, want only n2", got)
	}
}

func pending(p *corev1.Pod) {
	p.Spec.NodeName = ""
	p.Status = corev1.PodStatus{Phase: corev1.PodPending}
}

func hasKey(m map[string]int64, k string) bool { _, ok := m[k]; return ok }
