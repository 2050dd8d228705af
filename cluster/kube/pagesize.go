package kube

// PageSizes are the LIST page sizes ReadObjects asks for, so that a
// benchmark reading the cluster as run does asks for the same pages.
var PageSizes = struct {
	// Nodes is the page of Nodes and CSINodes, Pods that of Pods and
	// ReplicaSets, Others that of every other kind.
	Nodes, Pods, Others int64
}{nodePageSize, podPageSize, pageSize}
