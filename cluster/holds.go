package cluster

import (
	"encoding/json"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
)

// Hold is a node a run freed for a pending pod (a plan's placement),
// kept for that pod until it binds: the schedulers steer the pod there
// and keep other pods of no higher priority from taking its room. A run
// records it in the state ConfigMap before the moves that free the node
// and forgets it once the pod is bound, gone or replaced under its name;
// readers stop honouring it at their hand-off TTL, counted from At.
type Hold struct {
	// Pod is the pending pod ("namespace/name"), under its UID.
	Pod string    `json:"pod"`
	UID types.UID `json:"uid"`
	// Node is the node held for it.
	Node string `json:"node"`
	// Priority is the pod's: pods of higher priority are not kept off
	// the node, as kube-scheduler's nominator does not keep them.
	Priority int32  `json:"priority"`
	Strategy string `json:"strategy"`
	// At is when the hold was recorded.
	At time.Time `json:"at"`
}

// HoldKeep is how long a hold stays in the state: a run forgets an
// older one, and a plan no longer counts it. The schedulers honour a
// hold for at most their hand-off TTL.
const HoldKeep = 10 * time.Minute

// Live tells whether the hold still steers at now, given readers' TTL.
func (h Hold) Live(now time.Time, ttl time.Duration) bool {
	return !h.At.After(now.Add(ttl)) && now.Sub(h.At) <= ttl
}

// Over tells whether the hold has nothing left to hold in snap: its pod
// is gone, replaced under its name, bound, finished or being deleted.
func (h Hold) Over(snap *Snapshot) bool {
	p := snap.Pod(h.Pod)
	return p == nil || p.UID != h.UID || p.Spec.NodeName != "" || p.IsTerminal() || p.IsTerminating()
}

// The state ConfigMap's key for the holds: few, so plain JSON.
const holdsKey = "holds.json"

// DecodeHolds returns the holds a state ConfigMap holds; none when it
// holds none. What it cannot use is a *StateError.
func DecodeHolds(cm *corev1.ConfigMap) ([]Hold, error) {
	return decodeStateList[Hold](cm, holdsKey, "")
}

// EncodeHolds replaces the holds a state ConfigMap holds and keeps its
// other keys; none removes the key.
func EncodeHolds(cm *corev1.ConfigMap, holds []Hold) error {
	if len(holds) == 0 {
		delete(cm.Data, holdsKey)
		return nil
	}
	body, err := json.Marshal(holds)
	if err != nil {
		return err
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[formatKey] = stateFormat
	cm.Data[holdsKey] = string(body)
	return nil
}

// ApplyHolds makes each pod a live hold names (younger than HoldKeep at
// the snapshot's instant, and not over) count as nominated to its node,
// unless a scheduler nominated it somewhere already: a plan then treats
// that room as taken, as the schedulers do, and does not serve the pod
// again while the moves made for it settle. It returns how many pods it
// marked.
func (s *Snapshot) ApplyHolds(holds []Hold) int {
	n := 0
	for _, h := range holds {
		if h.Over(s) || !h.Live(s.Now, HoldKeep) || s.Node(h.Node) == nil {
			continue
		}
		p := s.Pod(h.Pod)
		if p.Status.NominatedNodeName != "" {
			continue
		}
		obj := *p.Pod
		obj.Status.NominatedNodeName = h.Node
		s.SetPod(&obj, p.Workload)
		n++
	}
	return n
}

// Holds returns the holds the state ConfigMaps of a dump record. A list
// that cannot be used is left out with a warning.
func (o *Objects) Holds() []Hold {
	var all []Hold
	for i := range o.StateConfigMaps {
		holds, err := DecodeHolds(&o.StateConfigMaps[i])
		if err != nil {
			klog.Warningf("%v; the plan ignores its holds", err)
			continue
		}
		all = append(all, holds...)
	}
	return all
}
