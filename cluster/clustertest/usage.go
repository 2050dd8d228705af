package clustertest

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// NodeUsage is a node's metrics.k8s.io sample, measured at Now less age
// over a 15s window, as metrics-server reports one.
func NodeUsage(node, cpu, memory string, age time.Duration) cluster.NodeMetrics {
	return cluster.NodeMetrics{
		ObjectMeta: metav1.ObjectMeta{Name: node},
		Timestamp:  metav1.NewTime(Now.Add(-age)),
		Window:     metav1.Duration{Duration: 15 * time.Second},
		Usage:      usageList(cpu, memory),
	}
}

// PodUsage is a pod's metrics.k8s.io sample, all in one container.
func PodUsage(namespace, name, cpu, memory string) cluster.PodMetrics {
	return cluster.PodMetrics{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Timestamp:  metav1.NewTime(Now),
		Window:     metav1.Duration{Duration: 15 * time.Second},
		Containers: []cluster.ContainerMetrics{{Name: "app", Usage: usageList(cpu, memory)}},
	}
}

// NodeRating is a Prometheus query's sample of a node, between 0 and 1.
func NodeRating(node string, value float64) cluster.NodeScore {
	return cluster.NodeScore{Node: node, Value: value, Timestamp: metav1.NewTime(Now)}
}

func usageList(cpu, memory string) corev1.ResourceList {
	l := corev1.ResourceList{}
	if cpu != "" {
		l[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		l[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	return l
}
