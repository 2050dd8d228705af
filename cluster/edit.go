package cluster

import (
	"fmt"
	"slices"
)

// Fork returns a snapshot that starts equal to s and can be edited without
// changing s. It copies the node table and the pod placement table, not the
// nodes or pods: a node is copied the first time an edit of the fork touches
// it. Forking takes ownership of shared nodes away from s too, so that s may
// still be edited afterwards without the fork seeing it.
func (s *Snapshot) Fork() *Snapshot {
	f := *s
	f.nodes = slices.Clone(s.nodes)
	f.placement = slices.Clone(s.placement)
	f.id = snapshotIDs.Add(1)
	s.id = snapshotIDs.Add(1)
	return &f
}

// Move takes the pod off its node and puts it on the node named to, as the
// planner does when it decides where an evicted pod's replacement will run.
func (s *Snapshot) Move(p *Pod, to string) error {
	from := s.NodeOf(p)
	if from == nil {
		return fmt.Errorf("pod %s is not on a node of the snapshot", p.Key)
	}
	if err := s.Place(p, to); err != nil {
		return err
	}
	s.editable(from.index).remove(p)
	return nil
}

// Place puts a pod that is on no node onto the node named to; a pod already
// on a node moves. Pods that are not in the snapshot cannot be placed.
func (s *Snapshot) Place(p *Pod, to string) error {
	if !s.owns(p) {
		return fmt.Errorf("pod %s is not in the snapshot", p.Key)
	}
	ti, ok := s.nodeIndex[to]
	if !ok {
		return fmt.Errorf("node %q is not in the snapshot", to)
	}
	if from := s.placement[p.id]; from >= 0 {
		if int(from) == ti {
			return nil
		}
		s.editable(int(from)).remove(p)
	}
	s.editable(ti).add(p)
	s.placement[p.id] = int32(ti)
	return nil
}

// Remove takes the pod off its node without putting it anywhere, as an
// eviction does for a pod that nothing replaces.
func (s *Snapshot) Remove(p *Pod) {
	if !s.owns(p) {
		return
	}
	if from := s.placement[p.id]; from >= 0 {
		s.editable(int(from)).remove(p)
		s.placement[p.id] = -1
	}
}

func (s *Snapshot) owns(p *Pod) bool {
	return p.id >= 0 && p.id < len(s.pods) && s.pods[p.id] == p
}

// editable returns the node at index i, copying it first if another
// snapshot shares it.
func (s *Snapshot) editable(i int) *Node {
	n := s.nodes[i]
	if n.owner != s.id {
		n = n.clone(s.id)
		s.nodes[i] = n
	}
	return n
}
