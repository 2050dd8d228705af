package schedulerd

import (
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// permit runs the profile's Permit plugins on the node chosen for the pod,
// in the scheduling cycle as kube-scheduler does. denied is why the pod may
// not go there, in kube-scheduler's words; wait says that the binding
// cycle must first wait on the plugins (Engine.WaitOnPermit) until they
// allow it or their timeouts end.
func (l *Live) permit(snap *cluster.Snapshot, p *cluster.Pod, node string) (wait bool, denied string) {
	verdict := l.Engine.Permit(snap, p, node)
	if verdict == nil {
		return false, ""
	}
	switch verdict.Verdict {
	case framework.PermitDeny:
		return false, verdict.Message
	case framework.PermitWait:
		klog.V(2).InfoS("Pod waits on permit", "pod", klog.KObj(p.Pod), "node", node, "plugins", verdict.Waiting)
		return true, ""
	}
	return false, ""
}
