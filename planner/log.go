package planner

import (
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// The -v 4 lines: every candidate a strategy offers, moved where or skipped
// why (the scheduler engine adds the nodes it rejected for the pod). The
// keys are stable, for whoever filters the log.
const vDecisions = 4

func logMoved(strategy string, p *cluster.Pod, m *Move) {
	if v := klog.V(vDecisions); v.Enabled() {
		kv := []any{"strategy", strategy, "pod", p.Key, "from", m.From, "to", m.To, "score", m.Score, "step", m.Step, "reason", m.Reason}
		if m.Budget != "" {
			kv = append(kv, "budget", m.Budget)
		}
		v.InfoSDepth(1, "Candidate moved", kv...)
	}
}

func logSkipped(strategy string, p *cluster.Pod, cat Category, why string) {
	if v := klog.V(vDecisions); v.Enabled() {
		v.InfoSDepth(1, "Candidate refused", "strategy", strategy, "pod", p.Key, "category", string(cat), "reason", why)
	}
}

// logSiblingAnswer writes that the candidate was not searched for: it took
// the no-fit answer of its interchangeable sibling, proposed just before it.
func logSiblingAnswer(strategy string, p, sibling *cluster.Pod) {
	if v := klog.V(vDecisions); v.Enabled() {
		v.InfoSDepth(1, "Candidate took its sibling's answer", "strategy", strategy, "pod", p.Key, "sibling", sibling.Key)
	}
}
