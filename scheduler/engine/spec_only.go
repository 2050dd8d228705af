package engine

import "github.com/kube-rebalancer/rebalancer/scheduler/plugins"

// SpecOnly reports whether the engine's filters see a pod only through what
// the replicas of one template share: its namespace, labels, owners, spec
// and requests, never its name, UID or annotations. That holds when every
// plugin the profile enables is an in-tree one and no extender is called:
// an out-of-tree plugin or an extender may read anything. The name decides
// where a search starts, which matters only when it stops early at the
// feasible nodes it needed; a search that finds no node examines every
// node. So when SpecOnly holds, two alike pods that leave the same node of
// an unchanged snapshot both fit nowhere, with the same message, or both
// fit somewhere, and a caller may answer the second as the first.
func (e *Engine) SpecOnly() bool {
	if len(e.extenders) > 0 {
		return false
	}
	for _, pl := range e.plugins {
		if !isInTree(pl.Name()) {
			return false
		}
	}
	return true
}

// SpecOnly holds when it holds for every engine the placer may use.
func (b *ByName) SpecOnly() bool {
	if !b.Default.SpecOnly() {
		return false
	}
	for _, e := range b.Engines {
		if !e.SpecOnly() {
			return false
		}
	}
	return true
}

func isInTree(name string) bool {
	for _, p := range plugins.InTree {
		if p.Name == name {
			return true
		}
	}
	return false
}
