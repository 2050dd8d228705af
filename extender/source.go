package extender

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// Source keeps what the extender needs in memory, from watches: the
// intents and holds of the state ConfigMap, the ReplicaSets that name the
// workload of each pod, and the pods, of which it keeps only what tells
// whether an evicted pod has left or a held pod is bound (name, UID,
// deletion, node).
type Source struct {
	Client kubernetes.Interface
	// Namespace and Name are the state ConfigMap's.
	Namespace, Name string
	Intents         *Intents

	replicaSets appslisters.ReplicaSetLister
	pods        corelisters.PodLister
	denied      chan error
}

// catchUpWait bounds how long a request waits for the pod watch to hold
// its pod: the watch lags the API server by milliseconds, and
// kube-scheduler's call must not wait long.
const catchUpWait = 2 * time.Second

// Denied yields the first refusal of a watch's list or watch (forbidden):
// the extender lacks a permission and cannot keep its caches, which no
// retry mends. Unauthorized is left to client-go's retries: credentials
// are refreshed, permissions are not.
func (s *Source) Denied() <-chan error { return s.denied }

// refused is the watch error handler of every informer: it reports a
// refusal on denied, and handles every error as client-go does.
func (s *Source) refused(what string) cache.WatchErrorHandlerWithContext {
	return func(ctx context.Context, r *cache.Reflector, err error) {
		if apierrors.IsForbidden(err) {
			select {
			case s.denied <- fmt.Errorf("watching %s: %w", what, err):
			default:
			}
		}
		cache.DefaultWatchErrorHandler(ctx, r, err)
	}
}

// Start starts the watches and returns once their caches are filled and
// the state has been read, or ctx ends, or a watch is refused.
func (s *Source) Start(ctx context.Context) error {
	s.denied = make(chan error, 1)
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
		s.Intents.Set(evs, time.Now())
		holds, err := cluster.DecodeHolds(cm)
		if err != nil {
			klog.ErrorS(err, "Ignoring the state ConfigMap's holds: no node is held for a pending pod until a run records them again")
			holds = nil
		}
		s.Intents.SetHolds(holds)
		klog.V(2).InfoS("Read the planned placements", "configMap", s.Namespace+"/"+s.Name, "evictions", len(evs))
	}
	handled, err := cms.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    load,
		UpdateFunc: func(_, obj any) { load(obj) },
		DeleteFunc: func(any) { s.Intents.Set(nil, time.Now()); s.Intents.SetHolds(nil) },
	})
	if err != nil {
		return err
	}
	all := informers.NewSharedInformerFactory(s.Client, 0)
	rs := all.Apps().V1().ReplicaSets()
	s.replicaSets = rs.Lister()
	_ = rs.Informer()
	pods := all.Core().V1().Pods()
	if err := pods.Informer().SetTransform(slimPod); err != nil {
		return err
	}
	s.pods = pods.Lister()
	for what, inf := range map[string]cache.SharedIndexInformer{
		"the state ConfigMap " + s.Namespace + "/" + s.Name: cms, "ReplicaSets": rs.Informer(), "pods": pods.Informer(),
	} {
		if err := inf.SetWatchErrorHandlerWithContext(s.refused(what)); err != nil {
			return err
		}
	}
	// A refused list never fills its cache: stop waiting for it.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case err := <-s.denied:
			select {
			case s.denied <- err: // kept for stopped
			default:
			}
			cancel()
		case <-wctx.Done():
		}
	}()
	state.Start(ctx.Done())
	all.Start(ctx.Done())
	for _, synced := range []map[reflect.Type]bool{state.WaitForCacheSync(wctx.Done()), all.WaitForCacheSync(wctx.Done())} {
		for kind, ok := range synced {
			if !ok {
				return s.stopped(fmt.Errorf("watching %v: the cache did not fill before the end", kind))
			}
		}
	}
	// The handler has seen what the cache holds, not only the cache.
	if !cache.WaitForCacheSync(wctx.Done(), handled.HasSynced) {
		return s.stopped(fmt.Errorf("reading the state ConfigMap: stopped before it was read"))
	}
	if len(cms.GetStore().List()) == 0 {
		s.Intents.Set(nil, time.Now()) // no state yet: no run has evicted anything
	}
	return nil
}

// stopped returns why the caches did not fill: a refused watch, or err.
func (s *Source) stopped(err error) error {
	select {
	case denied := <-s.denied:
		return denied
	default:
		return err
	}
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

// slimPod keeps of a pod what Departed and HoldOver read: a cluster's pods in full
// would cost the extender as much memory as kube-scheduler's cache.
func slimPod(obj any) (any, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name, UID: p.UID,
		ResourceVersion: p.ResourceVersion, DeletionTimestamp: p.DeletionTimestamp},
		Spec: corev1.PodSpec{NodeName: p.Spec.NodeName}}, nil
}

// HoldOver tells, from the pod watch, whether a hold's pod is bound,
// gone, replaced under its name or being deleted.
func (s *Source) HoldOver(h cluster.Hold) bool {
	namespace, name, _ := strings.Cut(h.Pod, "/")
	p, err := s.pods.Pods(namespace).Get(name)
	return err != nil || p.UID != h.UID || p.DeletionTimestamp != nil || p.Spec.NodeName != ""
}

// Departed tells, from the pod watch, whether the pod an intent evicts has
// left: no pod of its name, one of another UID (a StatefulSet's
// replacement), or one being deleted. An intent recorded without a UID
// cannot be told from a replacement of the same name and counts as left.
func (s *Source) Departed(e cluster.Eviction) bool {
	if e.UID == "" {
		return true
	}
	namespace, name, _ := strings.Cut(e.Pod, "/")
	p, err := s.pods.Pods(namespace).Get(name)
	return err != nil || p.UID != e.UID || p.DeletionTimestamp != nil
}

// CatchUp waits until the pod watch holds the pod of a request, for at
// most catchUpWait, and tells whether it does.
func (s *Source) CatchUp(pod *corev1.Pod) bool {
	holds := func(context.Context) (bool, error) {
		p, err := s.pods.Pods(pod.Namespace).Get(pod.Name)
		return err == nil && p.UID == pod.UID, nil
	}
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, catchUpWait, true, holds)
	return err == nil
}
