package schedulerd

import (
	"context"

	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler"
)

// permit runs the profile's Permit plugins on the node chosen for the pod
// and, when one asks the binding to wait, waits until they allow it or
// their timeouts end, as kube-scheduler's binding cycle does. It returns
// "" when the pod may be bound, else why not, in kube-scheduler's words.
func (l *Live) permit(ctx context.Context, snap *cluster.Snapshot, p *cluster.Pod, node string) string {
	verdict := l.Engine.Permit(snap, p, node)
	if verdict == nil {
		return ""
	}
	switch verdict.Verdict {
	case scheduler.PermitDeny:
		return verdict.Message
	case scheduler.PermitWait:
		klog.V(2).InfoS("Pod waits on permit", "pod", klog.KObj(p.Pod), "node", node, "plugins", verdict.Waiting)
		if err := l.Engine.WaitOnPermit(ctx, p.UID); err != nil {
			return err.Error()
		}
	}
	return ""
}
