package schedulerd

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// downExtender is an extender whose filter cannot be reached.
type downExtender struct{}

func (downExtender) Name() string                  { return "https://extender.example" }
func (downExtender) IsInterested(*corev1.Pod) bool { return true }
func (downExtender) IsIgnorable() bool             { return false }
func (downExtender) Weight() int64                 { return 1 }
func (downExtender) NodeCacheCapable() bool        { return true }
func (downExtender) SupportsPreemption() bool      { return false }
func (downExtender) Prioritize(*cluster.Pod, []*cluster.Node) (map[string]int64, error) {
	return nil, nil
}
func (downExtender) Filter(*cluster.Pod, []*cluster.Node) (engine.ExtenderFilterResult, error) {
	return engine.ExtenderFilterResult{}, errors.New("connection refused")
}
func (downExtender) ProcessPreemption(*cluster.Pod, map[string]engine.Victims) (map[string]engine.MetaVictims, error) {
	return nil, nil
}

// A non-ignorable extender that fails is a scheduling error, not a verdict
// on the nodes: kube-scheduler reports SchedulerError, does not preempt,
// and tries the pod again after its backoff.
func TestLiveReportsAFailingExtenderAsASchedulerError(t *testing.T) {
	eng, err := engine.New(profile.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	eng.SetExtenders([]engine.Extender{downExtender{}})
	client := runLive(t, &Live{Engine: eng}, ct.Node("n1"), ct.DeploymentReplicaSet("shop", "web"), replacement("web-1"))
	p := waitForPod(t, client, "shop", "web-1", func(p *corev1.Pod) bool {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
				return true
			}
		}
		return false
	})
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason != reasonSchedulerError {
			t.Errorf("PodScheduled reason %q (%s), want %q", c.Reason, c.Message, reasonSchedulerError)
		}
	}
	if p.Status.NominatedNodeName != "" {
		t.Errorf("nominated to %s; a failed extender does not preempt", p.Status.NominatedNodeName)
	}
}
