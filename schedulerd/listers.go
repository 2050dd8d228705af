package schedulerd

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// listers read the informer caches the live loop snapshots.
type listers struct {
	pods        func() ([]*corev1.Pod, error)
	nodes       func() ([]*corev1.Node, error)
	namespaces  func() ([]*corev1.Namespace, error)
	replicaSets func(labels.Selector) ([]*appsv1.ReplicaSet, error)
}

// snapshot builds a Snapshot of the cached objects. The cache's objects are
// shared and must not change: Snapshot keeps them read-only.
func (l listers) snapshot(pods []*corev1.Pod, now time.Time) (*cluster.Snapshot, error) {
	nodes, err := l.nodes()
	if err != nil {
		return nil, err
	}
	nss, err := l.namespaces()
	if err != nil {
		return nil, err
	}
	rss, err := l.replicaSets(labels.Everything())
	if err != nil {
		return nil, err
	}
	objs := cluster.Objects{
		Nodes:       make([]corev1.Node, len(nodes)),
		Pods:        make([]corev1.Pod, len(pods)),
		Namespaces:  make([]corev1.Namespace, len(nss)),
		ReplicaSets: make([]appsv1.ReplicaSet, len(rss)),
	}
	for i, n := range nodes {
		objs.Nodes[i] = *n
	}
	for i, p := range pods {
		objs.Pods[i] = *p
	}
	for i, ns := range nss {
		objs.Namespaces[i] = *ns
	}
	for i, rs := range rss {
		objs.ReplicaSets[i] = *rs
	}
	return cluster.New(objs, now)
}
