package cluster

import (
	"slices"
)

// nominatedPods returns the pods waiting for a node that a scheduler has
// nominated one for (status.nominatedNodeName): kube-scheduler holds their
// requests on that node against pods of lower priority until they bind or
// give the nomination up. Pods being deleted have left the scheduling
// queue and hold nothing.
func nominatedPods(pods []*Pod) []*Pod {
	var out []*Pod
	for _, p := range pods {
		if p.Status.NominatedNodeName != "" && p.Spec.NodeName == "" && !p.IsTerminal() && !p.IsTerminating() {
			out = append(out, p)
		}
	}
	return out
}

// Nominated returns the pending pods nominated to a node, sorted by
// namespace and name. A pod that an edit of this snapshot has placed is on
// a node and no longer counts: see NominatedTo.
func (s *Snapshot) Nominated() []*Pod { return s.nominated }

// NominatedTo returns the node a pending pod is nominated to and still
// waits for in this snapshot, or nil: nil too when its node is not in the
// snapshot or an edit has placed the pod.
func (s *Snapshot) NominatedTo(p *Pod) *Node {
	if p.Status.NominatedNodeName == "" || p.Spec.NodeName != "" || s.NodeOf(p) != nil {
		return nil
	}
	return s.Node(p.Status.NominatedNodeName)
}

// Scratch returns a copy of s to try edits on while s itself is only read:
// unlike Fork, it leaves s untouched (s keeps the ownership of its nodes),
// so that concurrent readers of s see no write. The copy is for one
// caller's short use: an edit of s made while the copy is in use may show
// through in it.
func (s *Snapshot) Scratch() *Snapshot {
	f := *s
	f.nodes = slices.Clone(s.nodes)
	f.placement = slices.Clone(s.placement)
	f.id = snapshotIDs.Add(1)
	return &f
}
