package extender

import (
	"context"
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// Source keeps what the extender needs in memory, from watches: the
// intents of the state ConfigMap, and the ReplicaSets that name the
// workload of each pod.
type Source struct {
	Client kubernetes.Interface
	// Namespace and Name are the state ConfigMap's.
	Namespace, Name string
	Intents         *Intents

	replicaSets appslisters.ReplicaSetLister
}

// Start starts the watches and returns once their caches are filled and
// the state has been read, or ctx ends.
func (s *Source) Start(ctx context.Context) error {
	state := informers.NewSharedInformerFactoryWithOptions(s.Client, 0, informers.WithNamespace(s.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", s.Name).String()
		}))
	cms := state.Core().V1().ConfigMaps().Informer()
	load := func(obj any) {
		cm, ok := obj.(*corev1.ConfigMap)
		if !ok {
			return
		}
		evs, err := cluster.DecodeEvictions(cm)
		if err != nil {
			klog.ErrorS(err, "Ignoring the state ConfigMap's evictions: replacements are not steered until a run replaces it")
			evs = nil
		}
		s.Intents.Set(evs)
		klog.V(2).InfoS("Read the planned placements", "configMap", s.Namespace+"/"+s.Name, "evictions", len(evs))
	}
	handled, err := cms.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    load,
		UpdateFunc: func(_, obj any) { load(obj) },
		DeleteFunc: func(any) { s.Intents.Set(nil) },
	})
	if err != nil {
		return err
	}
	all := informers.NewSharedInformerFactory(s.Client, 0)
	rs := all.Apps().V1().ReplicaSets()
	s.replicaSets = rs.Lister()
	_ = rs.Informer()
	state.Start(ctx.Done())
	all.Start(ctx.Done())
	for _, synced := range []map[reflect.Type]bool{state.WaitForCacheSync(ctx.Done()), all.WaitForCacheSync(ctx.Done())} {
		for kind, ok := range synced {
			if !ok {
				return fmt.Errorf("watching %v: the cache did not fill before the end", kind)
			}
		}
	}
	// The handler has seen what the cache holds, not only the cache.
	if !cache.WaitForCacheSync(ctx.Done(), handled.HasSynced) {
		return fmt.Errorf("reading the state ConfigMap: stopped before it was read")
	}
	if len(cms.GetStore().List()) == 0 {
		s.Intents.Set(nil) // no state yet: no run has evicted anything
	}
	return nil
}

// Workload resolves the workload of a pod, as the plan named it.
func (s *Source) Workload(p *corev1.Pod) cluster.Workload {
	return cluster.WorkloadOfPod(p, func(namespace, name string) *metav1.OwnerReference {
		rs, err := s.replicaSets.ReplicaSets(namespace).Get(name)
		if err != nil {
			return nil
		}
		return metav1.GetControllerOfNoCopy(rs)
	})
}
