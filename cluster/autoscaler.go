package cluster

// The annotations by which the cluster autoscaler and Karpenter are told to
// leave a pod (or a node) where it is: rebalancer, which works to the same
// end when it empties nodes for them, honours them too.
const (
	// SafeToEvictAnnotation "false" on a pod keeps the cluster autoscaler
	// from evicting it.
	SafeToEvictAnnotation = "cluster-autoscaler.kubernetes.io/safe-to-evict"
	// ScaleDownDisabledAnnotation "true" on a node keeps the cluster
	// autoscaler from removing it.
	ScaleDownDisabledAnnotation = "cluster-autoscaler.kubernetes.io/scale-down-disabled"
	// DoNotDisruptAnnotation keeps Karpenter from disrupting a pod ("true",
	// or a duration from its start) or a node ("true").
	DoNotDisruptAnnotation = "karpenter.sh/do-not-disrupt"
)
