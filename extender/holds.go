package extender

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// HoldOver tells whether a hold has nothing left to hold: its pod is
// bound, gone, replaced under its name or being deleted.
type HoldOver func(cluster.Hold) bool

// SetHolds replaces the holds with those the state holds now.
func (in *Intents) SetHolds(holds []cluster.Hold) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.holds = holds
}

// liveHolds returns the holds that still steer at now.
func (in *Intents) liveHolds(now time.Time, over HoldOver) []cluster.Hold {
	in.mu.Lock()
	defer in.mu.Unlock()
	var out []cluster.Hold
	for _, h := range in.holds {
		if h.Live(now, in.TTL) && (over == nil || !over(h)) {
			out = append(out, h)
		}
	}
	return out
}

// held returns the hold of the pod, if it has a live one, and the live
// holds that keep their node from it: those of other pods of no lower
// priority. A DaemonSet's pod is kept from none: it can run on one node
// only, and holding that node from it would leave the node without it.
func (s *Server) held(pod *corev1.Pod) (own cluster.Hold, ok bool, against []cluster.Hold) {
	holds := s.Intents.liveHolds(s.now(), s.HoldOver)
	if len(holds) == 0 {
		return cluster.Hold{}, false, nil
	}
	var priority int32
	if pod.Spec.Priority != nil {
		priority = *pod.Spec.Priority
	}
	daemon := ownerKind(pod) == "DaemonSet"
	for _, h := range holds {
		switch {
		case h.UID == pod.UID:
			own, ok = h, true
		case !daemon && h.Priority >= priority:
			against = append(against, h)
		}
	}
	return own, ok, against
}

func ownerKind(pod *corev1.Pod) string {
	for _, o := range pod.OwnerReferences {
		if o.Controller != nil && *o.Controller {
			return o.Kind
		}
	}
	return ""
}

// keepOff answers the filter of a pod that holds keep from their nodes:
// every candidate but those nodes. It is nil when none of the candidates
// is held.
func keepOff(args *extenderv1.ExtenderArgs, names []string, against []cluster.Hold) *extenderv1.ExtenderFilterResult {
	heldBy := map[string]cluster.Hold{}
	for _, h := range against {
		heldBy[h.Node] = h
	}
	out := &extenderv1.ExtenderFilterResult{FailedNodes: extenderv1.FailedNodesMap{}}
	var kept []string
	for _, n := range names {
		if h, ok := heldBy[n]; ok {
			out.FailedNodes[n] = fmt.Sprintf("rebalancer holds node %s for pending pod %s, for which its moves freed the node", n, h.Pod)
			continue
		}
		kept = append(kept, n)
	}
	if len(out.FailedNodes) == 0 {
		return nil
	}
	klog.V(2).InfoS("Pod kept off nodes held for pending pods", "pod", klog.KObj(args.Pod), "nodes", len(out.FailedNodes))
	only(args, out, kept)
	return out
}
