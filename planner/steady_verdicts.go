package planner

import (
	"fmt"
	"time"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// steadyVerdicts is what check finds of a pod that no move of the cycle changes:
// the policy's protections, its volumes, the cooldown, its node, and the
// limits and budgets as they stand before any eviction. first holds the
// reasons check reads before the total limit, last those it reads after,
// so that kept verdicts give the reason check would find, in its order.
// Strategies ask about the same pods in every round, and LowNodeUtilization
// asks twice in one: before it searches for a target and when it proposes.
type steadyVerdicts struct {
	first, last verdict
	// surge: only a budget or minReplicas keeps the pod, and its strategy
	// moves it by surge (evictable.makeBeforeBreak).
	surge bool
}

// verdict is one reason with its category; an empty why lets the pod pass.
type verdict struct {
	cat Category
	why string
}

func (c *cycle) steadyVerdictsOf(strategy string, p *cluster.Pod) steadyVerdicts {
	if c.planner.NoCache {
		return c.workOutSteadyVerdicts(strategy, p)
	}
	t, ok := c.steadyVerdicts[strategy]
	if !ok {
		t = new(cluster.PodTable[int32])
		c.steadyVerdicts[strategy] = t
	}
	i := t.Get(c.snap, p, func(p *cluster.Pod) int32 {
		s := c.workOutSteadyVerdicts(strategy, p)
		if s == (steadyVerdicts{}) {
			return -1
		}
		c.refusals = append(c.refusals, s)
		return int32(len(c.refusals) - 1)
	})
	if i < 0 {
		return steadyVerdicts{}
	}
	return c.refusals[i]
}

// workOutSteadyVerdicts works out the pod's steady verdicts with the strategy. It reads nothing a
// move changes: the pods moved are check's to tell, and a pod not moved is
// still on the node it started on.
func (c *cycle) workOutSteadyVerdicts(strategy string, p *cluster.Pod) steadyVerdicts {
	pol := c.planner.Policy
	s := pol.For(p.Namespace, c.snap.NamespaceLabels(p.Namespace))
	ev := s.EvictableFor(strategy)
	var surge bool
	first := func() verdict {
		if cat, why := protection(c.snap, pol, ev, p); cat == surgeOnly {
			var v verdict
			if surge, v = bySurge(c.snap, p, true, verdict{Protected, why}); v.why != "" {
				return v
			}
		} else if why != "" {
			return verdict{cat, why}
		}
		if needsPlace(p) && p.HasPVC() {
			if why := missingVolume(c.snap, p); why != "" {
				return verdict{NoFit, why}
			}
		}
		if at, ok := c.recent[p.Workload]; ok {
			return verdict{Cooldown, fmt.Sprintf("%s had a pod evicted %s ago; cooldown %s lets its replacements settle",
				p.Workload, c.snap.Now.Sub(at).Round(time.Second), pol.Cooldown.Duration)}
		}
		if from := c.boundNode(p); from != nil {
			if !c.nodes[from.Index()].selected {
				return verdict{Excluded, "node " + from.Name + " is not selected by the policy's nodeSelector"}
			}
			// A finished pod has nothing left for the kubelet to stop:
			// the API server deletes it at once.
			if !from.Ready() && !p.IsTerminal() {
				return verdict{NodeNotReady, "node " + from.Name + " is not Ready: the kubelet could not stop the pod"}
			}
		}
		return verdict{}
	}()
	if first.why != "" {
		return steadyVerdicts{first: first}
	}
	// The per-step limits and the budgets allow the pod in a later step
	// when they do not in this one; only what no step allows refuses it.
	var none counts
	if why := c.stepExceeded(&none, s, p, c.boundNode(p)); why != "" {
		return steadyVerdicts{last: verdict{LimitReached, why}}
	}
	if surge {
		// A surge takes nothing from a budget.
		return steadyVerdicts{surge: true}
	}
	// Nil maps: a fresh step's budgets, read only.
	fresh := budgets{implicit: c.budgets.implicit}
	if why, count := fresh.blockedBy(c.snap, p); why != "" {
		surge, v := bySurge(c.snap, p, count && *ev.MakeBeforeBreak, verdict{PDBBudget, why})
		return steadyVerdicts{last: v, surge: surge}
	}
	return steadyVerdicts{}
}
