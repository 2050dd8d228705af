package schedulerd

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// The scheduler watches PersistentVolumeClaims, PersistentVolumes,
// StorageClasses and CSINodes, as kube-scheduler does, so that the volume
// plugins (VolumeBinding, VolumeZone, VolumeRestrictions,
// NodeVolumeLimits) check each pod against the cluster's volumes: without
// them the cache cannot tell a missing claim from one it was not told
// about, and the plugins would let every pod through.

// volumeInformers registers the handlers of the four volume kinds.
func (l *Live) volumeInformers(factory informers.SharedInformerFactory) map[cache.SharedIndexInformer]cache.ResourceEventHandler {
	// A claim bound or created, a volume provisioned or freed, a class
	// created: a pod waiting for its claims may now find a node. A
	// CSINode's new limits concern the pods whose volumes a driver
	// attaches.
	claims := l.volumeHandler(cluster.UsesClaims)
	csiNodes := l.volumeHandler(cluster.AttachesVolumes)
	return map[cache.SharedIndexInformer]cache.ResourceEventHandler{
		factory.Core().V1().PersistentVolumeClaims().Informer(): claims,
		factory.Core().V1().PersistentVolumes().Informer():      claims,
		factory.Storage().V1().StorageClasses().Informer():      claims,
		factory.Storage().V1().CSINodes().Informer():            csiNodes,
	}
}

// volumeHandler gives the cache each volume object and brings back the
// unschedulable pods that may concern when one is added or changes. A
// deletion makes no pod fit that did not.
func (l *Live) volumeHandler(concerns func(*corev1.Pod) bool) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			l.cache.push(change{volume: obj})
			l.queue.move(concerns)
		},
		UpdateFunc: func(_, obj any) {
			l.cache.push(change{volume: obj})
			l.queue.move(concerns)
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			l.cache.push(change{volume: obj, deleted: true})
		},
	}
}

// applyVolume gives the snapshot a volume object, or takes it out.
func (c *podCache) applyVolume(obj any, deleted bool) {
	switch o := obj.(type) {
	case *corev1.PersistentVolumeClaim:
		if deleted {
			c.snap.DeleteClaim(o.Namespace, o.Name)
		} else {
			c.snap.SetClaim(o)
		}
	case *corev1.PersistentVolume:
		if deleted {
			c.snap.DeletePersistentVolume(o.Name)
		} else {
			c.snap.SetPersistentVolume(o)
		}
	case *storagev1.StorageClass:
		if deleted {
			c.snap.DeleteStorageClass(o.Name)
		} else {
			c.snap.SetStorageClass(o)
		}
	case *storagev1.CSINode:
		if deleted {
			c.snap.DeleteCSINode(o.Name)
		} else {
			c.snap.SetCSINode(o)
		}
	}
}
