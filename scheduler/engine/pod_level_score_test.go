package engine

import (
	"testing"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/noderesources"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// kube-scheduler 1.36 scores NodeResourcesFit on the containers' own
// requests (with its 100m/200Mi defaults), ignoring pod-level requests,
// while its filter does count them: the differential test against it showed
// a pod with spec.resources placed by that rule.
func TestNodeResourcesFitScoreIgnoresPodLevelRequests(t *testing.T) {
	snap := ct.Snapshot(t, ct.Node("n1"), ct.Node("n2").CPU("8"),
		ct.Pod("a", "with").PodRequests("2", "2Gi").Pending(),
		ct.Pod("a", "without").Pending(),
		ct.Pod("a", "too-big").PodRequests("6", "2Gi").Pending())
	e, err := New(profile.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	fitScores := func(pod string) map[string]int64 {
		out := map[string]int64{}
		for _, n := range e.Schedule(snap, snap.Pod(pod), Options{Explain: true}).Nodes {
			if n.Feasible {
				out[n.Name] = n.Scores[noderesources.FitName]
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

func hasKey(m map[string]int64, k string) bool { _, ok := m[k]; return ok }
