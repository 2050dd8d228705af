package schedulerd

import (
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// The scheduler watches PodDisruptionBudgets, as kube-scheduler's
// DefaultPreemption does, so that preemption takes first the victims whose
// deletion no budget forbids: without them every pod looks unprotected.
// A budget brings back no pod: it changes which pods go, never whether a
// pod fits.

// budgetInformer registers the handler of PodDisruptionBudgets.
func (l *Live) budgetInformer(factory informers.SharedInformerFactory) (cache.SharedIndexInformer, cache.ResourceEventHandler) {
	push := func(obj any, deleted bool) {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = t.Obj
		}
		if pdb, ok := obj.(*policyv1.PodDisruptionBudget); ok {
			l.cache.push(change{pdb: pdb, deleted: deleted})
		}
	}
	return factory.Policy().V1().PodDisruptionBudgets().Informer(), cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { push(obj, false) },
		UpdateFunc: func(_, obj any) { push(obj, false) },
		DeleteFunc: func(obj any) { push(obj, true) },
	}
}

// applyPDB gives the snapshot a budget, or takes it out. A budget whose
// selector does not parse covers no pod, as in kube-scheduler.
func (c *podCache) applyPDB(pdb *policyv1.PodDisruptionBudget, deleted bool) {
	if deleted {
		c.snap.DeletePDB(pdb.Namespace, pdb.Name)
		return
	}
	if err := c.snap.SetPDB(pdb); err != nil {
		klog.ErrorS(err, "Ignoring a PodDisruptionBudget whose selector does not parse", "pdb", klog.KObj(pdb))
	}
}
