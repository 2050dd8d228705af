package planner

import (
	"fmt"
	"strings"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// surgeOnly is what protection says of a pod that only minReplicas keeps
// and whose strategy may move it by surge: never a skip's category, as
// workOutSteadyVerdicts turns it into a surge or a Protected skip.
const surgeOnly Category = "surge-only"

// surgeRefusal returns why the pod's move cannot be made by surge, "" when
// it can. A surge raises a Deployment's spec.replicas by one and lowers it
// again once the new pod is Ready, so it needs a Deployment that nothing
// else sets the replicas of and that no rollout is changing.
func surgeRefusal(snap *cluster.Snapshot, p *cluster.Pod) string {
	w := p.Workload
	switch {
	case w.Kind == "StatefulSet":
		return "a StatefulSet's pod keeps its name and volumes, so no second one can run beside it; makeBeforeBreak moves only the pods of Deployments"
	case w.Kind != "Deployment":
		of := "a bare pod"
		if !w.IsZero() {
			of = "a pod of " + w.String()
		}
		return "makeBeforeBreak moves only the pods of Deployments, and this is " + of
	}
	d := snap.DeploymentOf(w)
	if d == nil {
		return fmt.Sprintf("%s is not in the snapshot, so a surge of it cannot be checked", w)
	}
	if hpa, ok := snap.AutoscalerOf(w); ok {
		return fmt.Sprintf("HorizontalPodAutoscaler %s scales %s, and a surge would race it for spec.replicas", hpa, w)
	}
	if why := cluster.Unsettled(d); why != "" {
		return why + ": a surge waits until every replica is updated and available"
	}
	return ""
}

// bySurge returns the verdict on a pod that only a budget or minReplicas
// keeps (refused, why): moved by surge when its strategy's makeBeforeBreak
// allows it and the Deployment can surge, else the refusal, saying what
// keeps makeBeforeBreak from it.
func bySurge(snap *cluster.Snapshot, p *cluster.Pod, allowed bool, refused verdict) (surge bool, v verdict) {
	if !allowed {
		return false, refused
	}
	if why := surgeRefusal(snap, p); why != "" {
		return false, verdict{refused.cat, strings.TrimSuffix(refused.why, makeBeforeBreakHint) + "; makeBeforeBreak cannot move it: " + why}
	}
	return true, verdict{}
}
