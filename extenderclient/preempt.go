package extenderclient

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
)

// SupportsPreemption implements engine.Extender: the extender has a
// preemptVerb.
func (c *Client) SupportsPreemption() bool { return c.cfg.PreemptVerb != "" }

// ProcessPreemption implements engine.Extender: it POSTs the candidates
// to urlPrefix/preemptVerb as kube-scheduler does, the victims' UIDs alone
// to an extender that caches nodes (it knows the pods), the whole pods to
// the others. The extender answers with UIDs in either case.
func (c *Client) ProcessPreemption(pod *cluster.Pod, candidates map[string]engine.Victims) (map[string]engine.MetaVictims, error) {
	if !c.SupportsPreemption() {
		return nil, fmt.Errorf("extender %q has no preemptVerb", c.cfg.URLPrefix)
	}
	args := &extenderv1.ExtenderPreemptionArgs{Pod: pending(pod.Pod)}
	if c.cfg.NodeCacheCapable {
		args.NodeNameToMetaVictims = make(map[string]*extenderv1.MetaVictims, len(candidates))
		for name, v := range candidates {
			mv := &extenderv1.MetaVictims{Pods: make([]*extenderv1.MetaPod, len(v.Pods)), NumPDBViolations: int64(v.PDBViolations)}
			for i, p := range v.Pods {
				mv.Pods[i] = &extenderv1.MetaPod{UID: string(p.UID)}
			}
			args.NodeNameToMetaVictims[name] = mv
		}
	} else {
		args.NodeNameToVictims = make(map[string]*extenderv1.Victims, len(candidates))
		for name, v := range candidates {
			vs := &extenderv1.Victims{Pods: make([]*corev1.Pod, len(v.Pods)), NumPDBViolations: int64(v.PDBViolations)}
			for i, p := range v.Pods {
				vs.Pods[i] = p.Pod
			}
			args.NodeNameToVictims[name] = vs
		}
	}
	var res extenderv1.ExtenderPreemptionResult
	if err := c.send(c.cfg.PreemptVerb, args, &res); err != nil {
		return nil, err
	}
	out := make(map[string]engine.MetaVictims, len(res.NodeNameToMetaVictims))
	for name, mv := range res.NodeNameToMetaVictims {
		var v engine.MetaVictims
		if mv != nil {
			v.PDBViolations = int(mv.NumPDBViolations)
			for _, p := range mv.Pods {
				if p != nil {
					v.UIDs = append(v.UIDs, types.UID(p.UID))
				}
			}
		}
		out[name] = v
	}
	return out, nil
}
