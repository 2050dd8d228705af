package scheduler

import (
	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/utils/ptr"
)

// The names of kube-scheduler's in-tree plugins, as a profile spells them.
const (
	NodeUnschedulable               = "NodeUnschedulable"
	NodeName                        = "NodeName"
	TaintToleration                 = "TaintToleration"
	NodeAffinity                    = "NodeAffinity"
	NodePorts                       = "NodePorts"
	NodeResourcesFit                = "NodeResourcesFit"
	PodTopologySpread               = "PodTopologySpread"
	InterPodAffinity                = "InterPodAffinity"
	NodeResourcesBalancedAllocation = "NodeResourcesBalancedAllocation"
	ImageLocality                   = "ImageLocality"

	SchedulingGates            = "SchedulingGates"
	PrioritySort               = "PrioritySort"
	VolumeRestrictions         = "VolumeRestrictions"
	NodeVolumeLimits           = "NodeVolumeLimits"
	VolumeBinding              = "VolumeBinding"
	VolumeZone                 = "VolumeZone"
	DefaultPreemption          = "DefaultPreemption"
	DefaultBinder              = "DefaultBinder"
	DynamicResources           = "DynamicResources"
	NodeDeclaredFeatures       = "NodeDeclaredFeatures"
	GangScheduling             = "GangScheduling"
	TopologyPlacementGenerator = "TopologyPlacementGenerator"
	PodGroupPodsCount          = "PodGroupPodsCount"
)

// extensionPoint is one stage of the scheduling framework, as a bit so that
// a plugin's stages form a set.
type extensionPoint uint16

const (
	pointPreEnqueue extensionPoint = 1 << iota
	pointQueueSort
	pointPreFilter
	pointFilter
	pointPostFilter
	pointPreScore
	pointScore
	pointReserve
	pointPermit
	pointPreBind
	pointBind
	pointPostBind
	pointPlacementGenerate
	pointPlacementScore
)

// pluginInfo says which stages a plugin takes part in and whether the
// engine simulates it.
type pluginInfo struct {
	points    extensionPoint
	simulated bool
}

// knownPlugins is kube-scheduler 1.36's in-tree registry. Plugins the engine
// does not simulate are known so that a profile written for kube-scheduler
// loads unchanged; the engine passes every node through them.
var knownPlugins = map[string]pluginInfo{
	NodeUnschedulable:               {pointFilter, true},
	NodeName:                        {pointFilter, true},
	TaintToleration:                 {pointFilter | pointPreScore | pointScore, true},
	NodeAffinity:                    {pointPreFilter | pointFilter | pointPreScore | pointScore, true},
	NodePorts:                       {pointPreFilter | pointFilter, true},
	NodeResourcesFit:                {pointPreFilter | pointFilter | pointPreScore | pointScore | pointPlacementScore, true},
	PodTopologySpread:               {pointPreFilter | pointFilter | pointPreScore | pointScore, true},
	InterPodAffinity:                {pointPreFilter | pointFilter | pointPreScore | pointScore, true},
	NodeResourcesBalancedAllocation: {pointPreScore | pointScore, true},
	ImageLocality:                   {pointScore, true},

	SchedulingGates:            {pointPreEnqueue, false},
	PrioritySort:               {pointQueueSort, false},
	VolumeRestrictions:         {pointPreFilter | pointFilter, false},
	NodeVolumeLimits:           {pointPreFilter | pointFilter, false},
	VolumeBinding:              {pointPreFilter | pointFilter | pointReserve | pointPreBind | pointPreScore | pointScore, false},
	VolumeZone:                 {pointPreFilter | pointFilter, false},
	DefaultPreemption:          {pointPreEnqueue | pointPostFilter, false},
	DefaultBinder:              {pointBind, false},
	DynamicResources:           {pointPreEnqueue | pointPreFilter | pointFilter | pointPostFilter | pointPreScore | pointScore | pointReserve | pointPreBind, false},
	NodeDeclaredFeatures:       {pointPreFilter | pointFilter, false},
	GangScheduling:             {pointPreEnqueue | pointPermit, false},
	TopologyPlacementGenerator: {pointPlacementGenerate, false},
	PodGroupPodsCount:          {pointPlacementScore, false},
}

// defaultMultiPoint is kube-scheduler 1.36's default profile with the
// feature gates that are on by default (DynamicResourceAllocation,
// NodeDeclaredFeatures), in its order: the order of filters decides which
// reason a node that fails several of them reports.
func defaultMultiPoint() []configv1.Plugin {
	return []configv1.Plugin{
		{Name: SchedulingGates},
		{Name: PrioritySort},
		{Name: NodeUnschedulable},
		{Name: NodeName},
		{Name: TaintToleration, Weight: ptr.To[int32](3)},
		{Name: NodeAffinity, Weight: ptr.To[int32](2)},
		{Name: NodePorts},
		{Name: NodeResourcesFit, Weight: ptr.To[int32](1)},
		{Name: VolumeRestrictions},
		{Name: NodeVolumeLimits},
		{Name: VolumeBinding},
		{Name: VolumeZone},
		{Name: PodTopologySpread, Weight: ptr.To[int32](2)},
		{Name: InterPodAffinity, Weight: ptr.To[int32](2)},
		{Name: DynamicResources, Weight: ptr.To[int32](2)},
		{Name: DefaultPreemption},
		{Name: NodeResourcesBalancedAllocation, Weight: ptr.To[int32](1)},
		{Name: ImageLocality, Weight: ptr.To[int32](1)},
		{Name: DefaultBinder},
		{Name: NodeDeclaredFeatures},
	}
}
