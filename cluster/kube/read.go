package kube

import (
	"context"
	"errors"
	"fmt"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/pager"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// pageSize bounds each LIST response, so that a 150,000-pod cluster is read
// in pages the API server can serve without a long, memory-hungry request.
const pageSize = 500

// ReadObjects reads the objects a cluster.Snapshot needs from the API server with
// paginated LISTs, the twelve kinds in parallel. managedFields are dropped as
// they arrive: nothing uses them and they are a large part of every object.
func ReadObjects(ctx context.Context, client kubernetes.Interface) (cluster.Objects, error) {
	var (
		objs cluster.Objects
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	list := func(resource string, page pager.ListPageFunc, add func(runtime.Object)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := pager.New(page)
			p.PageSize = pageSize
			err := p.EachListItem(ctx, metav1.ListOptions{}, func(obj runtime.Object) error {
				if m, ok := obj.(metav1.Object); ok {
					m.SetManagedFields(nil)
				}
				add(obj)
				return nil
			})
			if err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("listing %s: %w", resource, err))
				mu.Unlock()
			}
		}()
	}
	list("nodes", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return client.CoreV1().Nodes().List(ctx, o)
	}, func(obj runtime.Object) { objs.Nodes = append(objs.Nodes, *obj.(*corev1.Node)) })
	list("pods", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, o)
	}, func(obj runtime.Object) { objs.Pods = append(objs.Pods, *obj.(*corev1.Pod)) })
	list("poddisruptionbudgets", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return client.PolicyV1().PodDisruptionBudgets(metav1.NamespaceAll).List(ctx, o)
	}, func(obj runtime.Object) { objs.PDBs = append(objs.PDBs, *obj.(*policyv1.PodDisruptionBudget)) })
	list("namespaces", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return client.CoreV1().Namespaces().List(ctx, o)
	}, func(obj runtime.Object) { objs.Namespaces = append(objs.Namespaces, *obj.(*corev1.Namespace)) })
	list("priorityclasses", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return client.SchedulingV1().PriorityClasses().List(ctx, o)
	}, func(obj runtime.Object) {
		objs.PriorityClasses = append(objs.PriorityClasses, *obj.(*schedulingv1.PriorityClass))
	})
	list("replicasets", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return client.AppsV1().ReplicaSets(metav1.NamespaceAll).List(ctx, o)
	}, func(obj runtime.Object) { objs.ReplicaSets = append(objs.ReplicaSets, *obj.(*appsv1.ReplicaSet)) })
	list("statefulsets", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return client.AppsV1().StatefulSets(metav1.NamespaceAll).List(ctx, o)
	}, func(obj runtime.Object) {
		ss := obj.(*appsv1.StatefulSet)
		cluster.TrimStatefulSet(ss)
		objs.StatefulSets = append(objs.StatefulSets, *ss)
	})
	list("jobs", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return client.BatchV1().Jobs(metav1.NamespaceAll).List(ctx, o)
	}, func(obj runtime.Object) { objs.Jobs = append(objs.Jobs, *obj.(*batchv1.Job)) })
	list("persistentvolumes", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return client.CoreV1().PersistentVolumes().List(ctx, o)
	}, func(obj runtime.Object) {
		objs.PersistentVolumes = append(objs.PersistentVolumes, *obj.(*corev1.PersistentVolume))
	})
	list("persistentvolumeclaims", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return client.CoreV1().PersistentVolumeClaims(metav1.NamespaceAll).List(ctx, o)
	}, func(obj runtime.Object) {
		objs.PersistentVolumeClaims = append(objs.PersistentVolumeClaims, *obj.(*corev1.PersistentVolumeClaim))
	})
	list("storageclasses", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return client.StorageV1().StorageClasses().List(ctx, o)
	}, func(obj runtime.Object) {
		objs.StorageClasses = append(objs.StorageClasses, *obj.(*storagev1.StorageClass))
	})
	list("csinodes", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return client.StorageV1().CSINodes().List(ctx, o)
	}, func(obj runtime.Object) { objs.CSINodes = append(objs.CSINodes, *obj.(*storagev1.CSINode)) })
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return cluster.Objects{}, err
	}
	objs.VolumesListed = true
	return objs, nil
}
