// Package plugins is the engine's table of kube-scheduler's in-tree
// plugins; each simulated plugin lives in a package of its own under this
// one, written against package framework only, as an out-of-tree plugin
// is.
package plugins

import (
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/defaultpreemption"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/imagelocality"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/interpodaffinity"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/nodeaffinity"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/nodename"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/nodeports"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/noderesources"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/nodeunschedulable"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/nodevolumelimits"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/podtopologyspread"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/tainttoleration"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/volumebinding"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/volumerestrictions"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/volumezone"
)

// Points are extension points, short for the table.
const (
	preEnqueue        = framework.PointPreEnqueue
	queueSort         = framework.PointQueueSort
	preFilter         = framework.PointPreFilter
	filter            = framework.PointFilter
	postFilter        = framework.PointPostFilter
	preScore          = framework.PointPreScore
	score             = framework.PointScore
	reserve           = framework.PointReserve
	permit            = framework.PointPermit
	preBind           = framework.PointPreBind
	bind              = framework.PointBind
	placementGenerate = framework.PointPlacementGenerate
	placementScore    = framework.PointPlacementScore
)

var noArgs = framework.NoArgs

// InTree is kube-scheduler 1.36's in-tree registry, one row a plugin, in
// the order of its default profile (with the feature gates that are on by
// default, DynamicResourceAllocation and NodeDeclaredFeatures) and then the
// plugins that profile leaves out: the order of filters decides which
// reason a node that fails several of them reports. Plugins the engine does
// not simulate (no New) are known so that a profile written for
// kube-scheduler loads unchanged; the engine passes every node through them.
var InTree = []Plugin{
	{Name: "SchedulingGates", InDefault: true, Registration: framework.Registration{Points: preEnqueue, Args: noArgs}},
	{Name: "PrioritySort", InDefault: true, Registration: framework.Registration{Points: queueSort, Args: noArgs}},
	{Name: nodeunschedulable.Name, InDefault: true, Registration: framework.Registration{Points: filter, Args: noArgs, New: nodeunschedulable.New}},
	{Name: nodename.Name, InDefault: true, Registration: framework.Registration{Points: filter, Args: noArgs, New: nodename.New}},
	{Name: tainttoleration.Name, InDefault: true, Weight: 3, Registration: framework.Registration{Points: filter | preScore | score, Args: noArgs, New: tainttoleration.New}},
	{Name: nodeaffinity.Name, InDefault: true, Weight: 2, Registration: framework.Registration{Points: preFilter | filter | preScore | score, Args: nodeaffinity.Args, New: nodeaffinity.New}},
	{Name: nodeports.Name, InDefault: true, Registration: framework.Registration{Points: preFilter | filter, Args: noArgs, New: nodeports.New}},
	{Name: noderesources.FitName, InDefault: true, Weight: 1, Registration: framework.Registration{Points: preFilter | filter | preScore | score | placementScore, Args: noderesources.FitArgs, New: noderesources.NewFit}},
	{Name: volumerestrictions.Name, InDefault: true, Registration: framework.Registration{Points: preFilter | filter, Args: noArgs, New: volumerestrictions.New}},
	{Name: nodevolumelimits.Name, InDefault: true, Registration: framework.Registration{Points: preFilter | filter, Args: noArgs, New: nodevolumelimits.New}},
	{Name: volumebinding.Name, InDefault: true, Registration: framework.Registration{Points: preFilter | filter | reserve | preBind | preScore | score, Args: volumebinding.Args, New: volumebinding.New}},
	{Name: volumezone.Name, InDefault: true, Registration: framework.Registration{Points: preFilter | filter, Args: noArgs, New: volumezone.New}},
	{Name: podtopologyspread.Name, InDefault: true, Weight: 2, Registration: framework.Registration{Points: preFilter | filter | preScore | score, Args: podtopologyspread.Args, New: podtopologyspread.New}},
	{Name: interpodaffinity.Name, InDefault: true, Weight: 2, Registration: framework.Registration{Points: preFilter | filter | preScore | score, Args: interpodaffinity.Args, New: interpodaffinity.New}},
	{Name: "DynamicResources", InDefault: true, Weight: 2, Registration: framework.Registration{Points: preEnqueue | preFilter | filter | postFilter | preScore | score | reserve | preBind, Args: framework.UnusedArgs[configv1.DynamicResourcesArgs]("DynamicResources")}},
	{Name: defaultpreemption.Name, InDefault: true, Registration: framework.Registration{Points: preEnqueue | postFilter, Args: defaultpreemption.Args}},
	{Name: noderesources.BalancedAllocationName, InDefault: true, Weight: 1, Registration: framework.Registration{Points: preScore | score, Args: noderesources.BalancedAllocationArgs, New: noderesources.NewBalancedAllocation}},
	{Name: imagelocality.Name, InDefault: true, Weight: 1, Registration: framework.Registration{Points: score, Args: noArgs, New: imagelocality.New}},
	{Name: "DefaultBinder", InDefault: true, Registration: framework.Registration{Points: bind, Args: noArgs}},
	{Name: "NodeDeclaredFeatures", InDefault: true, Registration: framework.Registration{Points: preFilter | filter, Args: noArgs}},
	{Name: "GangScheduling", Registration: framework.Registration{Points: preEnqueue | permit, Args: noArgs}},
	{Name: "TopologyPlacementGenerator", Registration: framework.Registration{Points: placementGenerate, Args: noArgs}},
	{Name: "PodGroupPodsCount", Registration: framework.Registration{Points: placementScore, Args: noArgs}},
}

// Plugin is one row of InTree: the plugin's registration and its place
// in kube-scheduler's default profile.
type Plugin struct {
	Name string
	framework.Registration
	// InDefault: the default profile enables the plugin, with Weight
	// when it is not 0.
	InDefault bool
	Weight    int32
}
