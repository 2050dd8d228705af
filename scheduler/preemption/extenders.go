package preemption

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
)

// logger is where ignorable extenders' failures are logged, as the
// engine logs them.
var logger = klog.Background()

// reasonNoCandidate is what DefaultPreemption says when the extenders
// left no candidate.
const reasonNoCandidate = "no candidate node for preemption"

// processExtenders hands the candidates to the extenders that have a
// preemptVerb and want the pod, in the engine's extender order, as
// kube-scheduler does between finding candidates and picking one: each
// sees what the previous one kept. An ignorable extender that fails, or
// names a victim that is not on its node, is skipped; a non-ignorable one
// ends preemption with its error. Once no candidate is left the others
// are not asked. The candidates the extenders keep stay in the order they
// were found, those an extender adds follow by node name, so that the
// pick's ties break the same way every time.
func processExtenders(e *engine.Engine, snap *cluster.Snapshot, pod *cluster.Pod, cands []candidate) ([]candidate, error) {
	extenders := e.Extenders()
	if len(extenders) == 0 {
		return cands, nil
	}
	victims := make(map[string]engine.Victims, len(cands))
	order := make([]string, len(cands))
	for k, c := range cands {
		name := snap.Nodes()[c.node].Name
		order[k] = name
		victims[name] = engine.Victims{Pods: c.victims, PDBViolations: c.pdbViolations}
	}
	for _, x := range extenders {
		if !x.SupportsPreemption() || !x.IsInterested(pod.Pod) {
			continue
		}
		got, err := processPreemption(x, snap, pod, victims)
		if err != nil {
			if x.IsIgnorable() {
				logger.V(2).Info("Skipping an ignorable extender whose preemption failed", "extender", x.Name(), "pod", pod.Key, "err", err)
				continue
			}
			return nil, err
		}
		for _, name := range slices.Sorted(maps.Keys(got)) {
			if len(got[name].Pods) > 0 {
				continue
			}
			if !x.IsIgnorable() {
				return nil, fmt.Errorf("%s %q", reasonNoVictimNeeded, name)
			}
			logger.V(2).Info("Dropping a node for which an ignorable extender named no victims", "extender", x.Name(), "pod", pod.Key, "node", name)
			delete(got, name)
		}
		victims = got
		if len(victims) == 0 {
			break
		}
	}
	out := make([]candidate, 0, len(victims))
	add := func(name string) {
		v, ok := victims[name]
		if !ok {
			return
		}
		delete(victims, name)
		out = append(out, candidate{node: snap.Node(name).Index(), victims: v.Pods, pdbViolations: v.PDBViolations})
	}
	for _, name := range order {
		add(name)
	}
	for _, name := range slices.Sorted(maps.Keys(victims)) {
		add(name)
	}
	return out, nil
}

// processPreemption calls one extender's preemptVerb and finds the
// victims it names, by UID, among the pods of their node, as
// kube-scheduler does: a node the snapshot lacks, or a UID that is not
// on its node, is the extender's error.
func processPreemption(x engine.Extender, snap *cluster.Snapshot, pod *cluster.Pod, cands map[string]engine.Victims) (map[string]engine.Victims, error) {
	got, err := x.ProcessPreemption(pod, cands)
	if err != nil {
		return nil, err
	}
	out := make(map[string]engine.Victims, len(got))
	for _, name := range slices.Sorted(maps.Keys(got)) {
		node := snap.Node(name)
		if node == nil {
			return nil, fmt.Errorf("extender: %v names node %q for preemption, which is not in the cluster", x.Name(), name)
		}
		mv := got[name]
		v := engine.Victims{Pods: make([]*cluster.Pod, 0, len(mv.UIDs)), PDBViolations: mv.PDBViolations}
		for _, uid := range mv.UIDs {
			p := podByUID(node, uid)
			if p == nil {
				return nil, fmt.Errorf("extender: %v claims to preempt pod (UID: %v) on node: %v, but the pod is not found on that node", x.Name(), uid, name)
			}
			v.Pods = append(v.Pods, p)
		}
		out[name] = v
	}
	return out, nil
}

func podByUID(n *cluster.Node, uid types.UID) *cluster.Pod {
	for _, p := range n.Pods() {
		if p.UID == uid {
			return p
		}
	}
	return nil
}
