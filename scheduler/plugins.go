package scheduler

import (
	configv1 "k8s.io/kube-scheduler/config/v1"
)

// inTree is kube-scheduler 1.36's in-tree registry, one row a plugin, in
// the order of its default profile (with the feature gates that are on by
// default, DynamicResourceAllocation and NodeDeclaredFeatures) and then the
// plugins that profile leaves out: the order of filters decides which
// reason a node that fails several of them reports. Plugins the engine does
// not simulate (no New) are known so that a profile written for
// kube-scheduler loads unchanged; the engine passes every node through them.
var inTree = []inTreePlugin{
	{name: "SchedulingGates", inDefault: true, Registration: Registration{Points: PointPreEnqueue, Args: noArgs}},
	{name: "PrioritySort", inDefault: true, Registration: Registration{Points: PointQueueSort, Args: noArgs}},
	{name: NodeUnschedulable, inDefault: true, Registration: Registration{Points: PointFilter, Args: noArgs, New: newNodeUnschedulable}},
	{name: NodeName, inDefault: true, Registration: Registration{Points: PointFilter, Args: noArgs, New: newNodeName}},
	{name: TaintToleration, inDefault: true, weight: 3, Registration: Registration{Points: PointFilter | PointPreScore | PointScore, Args: noArgs, New: newTaintToleration}},
	{name: NodeAffinity, inDefault: true, weight: 2, Registration: Registration{Points: PointPreFilter | PointFilter | PointPreScore | PointScore, Args: nodeAffinityArgs, New: newNodeAffinity}},
	{name: NodePorts, inDefault: true, Registration: Registration{Points: PointPreFilter | PointFilter, Args: noArgs, New: newNodePorts}},
	{name: NodeResourcesFit, inDefault: true, weight: 1, Registration: Registration{Points: PointPreFilter | PointFilter | PointPreScore | PointScore | PointPlacementScore, Args: nodeResourcesFitArgs, New: newNodeResourcesFit}},
	{name: VolumeRestrictions, inDefault: true, Registration: Registration{Points: PointPreFilter | PointFilter, Args: noArgs, New: newVolumeRestrictions}},
	{name: NodeVolumeLimits, inDefault: true, Registration: Registration{Points: PointPreFilter | PointFilter, Args: noArgs, New: newNodeVolumeLimits}},
	{name: VolumeBinding, inDefault: true, Registration: Registration{Points: PointPreFilter | PointFilter | PointReserve | PointPreBind | PointPreScore | PointScore, Args: volumeBindingArgs, New: newVolumeBinding}},
	{name: VolumeZone, inDefault: true, Registration: Registration{Points: PointPreFilter | PointFilter, Args: noArgs, New: newVolumeZone}},
	{name: PodTopologySpread, inDefault: true, weight: 2, Registration: Registration{Points: PointPreFilter | PointFilter | PointPreScore | PointScore, Args: podTopologySpreadArgs, New: newPodTopologySpread}},
	{name: InterPodAffinity, inDefault: true, weight: 2, Registration: Registration{Points: PointPreFilter | PointFilter | PointPreScore | PointScore, Args: interPodAffinityArgs, New: newInterPodAffinity}},
	{name: "DynamicResources", inDefault: true, weight: 2, Registration: Registration{Points: PointPreEnqueue | PointPreFilter | PointFilter | PointPostFilter | PointPreScore | PointScore | PointReserve | PointPreBind, Args: unusedArgs[configv1.DynamicResourcesArgs]("DynamicResources")}},
	{name: DefaultPreemption, inDefault: true, Registration: Registration{Points: PointPreEnqueue | PointPostFilter, Args: defaultPreemptionArgs}},
	{name: NodeResourcesBalancedAllocation, inDefault: true, weight: 1, Registration: Registration{Points: PointPreScore | PointScore, Args: balancedAllocationArgs, New: newBalancedAllocation}},
	{name: ImageLocality, inDefault: true, weight: 1, Registration: Registration{Points: PointScore, Args: noArgs, New: newImageLocality}},
	{name: "DefaultBinder", inDefault: true, Registration: Registration{Points: PointBind, Args: noArgs}},
	{name: "NodeDeclaredFeatures", inDefault: true, Registration: Registration{Points: PointPreFilter | PointFilter, Args: noArgs}},
	{name: "GangScheduling", Registration: Registration{Points: PointPreEnqueue | PointPermit, Args: noArgs}},
	{name: "TopologyPlacementGenerator", Registration: Registration{Points: PointPlacementGenerate, Args: noArgs}},
	{name: "PodGroupPodsCount", Registration: Registration{Points: PointPlacementScore, Args: noArgs}},
}

// inTreePlugin is one row of inTree: the plugin's registration and its
// place in kube-scheduler's default profile.
type inTreePlugin struct {
	name string
	Registration
	// inDefault: the default profile enables the plugin, with weight
	// when it is not 0.
	inDefault bool
	weight    int32
}
