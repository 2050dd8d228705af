// Package framework is what a scheduling plugin sees of the engine, in-tree
// and out-of-tree alike: the plugin interfaces (Plugin, FilterPlugin,
// ScorePlugin, StaticFilterPlugin, PostFilterPlugin, PermitPlugin and the
// optional UnresolvableFilter), the Registration a plugin is known by, the
// Handle it is built with, and the Cycle of one decision. A plugin keeps
// per-decision state with State and per-snapshot-family caches with
// FamilyState (Memo, Lazy); the facts several plugins share are Cycle
// methods, computed once per decision (NodeAffinitySelection,
// UntoleratedTaints, NamespaceLabels, TopologyDomains, PodGroups, …).
//
// The engine (package scheduler/engine) runs plugins through this package only;
// the methods documented as the engine's (Cycle.Init, Begin, End,
// NewHandle, NewFamily, NewWaitingPod, WaitingPod.Wait) are not for
// plugins.
package framework
