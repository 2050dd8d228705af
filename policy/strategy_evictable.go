package policy

import (
	"reflect"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// A strategy's evictable settings: those of the namespace (the global
// evictable, overlaid by the override that matches it) with the fields the
// strategy's own evictable sets laid on top. The descheduler runs each
// profile with its own DefaultEvictor; this is how one policy keeps them.
// The overlays are resolved once, when the policy loads, not per pod.

// EvictableFor returns the evictable settings of the pods the named
// strategy moves.
func (s *Settings) EvictableFor(strategy string) *Evictable {
	if e, ok := s.byStrategy[strategy]; ok {
		return e
	}
	return &s.Evictable
}

// Evictables returns every set of evictable settings the policy applies:
// the global ones, each override's and each strategy's, for callers that
// must know what any of them reads (the kinds a dump must hold).
func (p *Policy) Evictables() []*Evictable {
	var all []*Evictable
	for _, s := range p.allSettings() {
		all = append(all, s.evictables()...)
	}
	return all
}

func (s *Settings) evictables() []*Evictable {
	all := []*Evictable{&s.Evictable}
	for _, n := range s.Strategies.List() {
		if e, ok := s.byStrategy[n.Name]; ok {
			all = append(all, e)
		}
	}
	return all
}

// resolveStrategies computes the evictable settings of each strategy that
// overlays its own, from the compiled settings of the namespace.
func (s *Settings) resolveStrategies(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	s.byStrategy = nil
	for _, n := range s.Strategies.List() {
		over := n.Args.CommonArgs().Evictable
		if over == nil {
			continue
		}
		e := s.Evictable.overlaid(over)
		if over.LabelSelector != nil {
			var serrs field.ErrorList
			e.selector, serrs = compileSelector(e.LabelSelector, path.Child("strategies", n.Name, "evictable", "labelSelector"))
			errs = append(errs, serrs...)
		}
		if s.byStrategy == nil {
			s.byStrategy = make(map[string]*Evictable)
		}
		s.byStrategy[n.Name] = &e
	}
	return errs
}

// overlaid returns e with each field over sets in its place, whole: a
// labelSelector or priorityThreshold replaces the inherited one rather than
// merging with it, so that an overlay can say "{}" (every pod) or name a
// class where the namespace gives a value.
func (e Evictable) overlaid(over *Evictable) Evictable {
	out := e
	ov, ev := reflect.ValueOf(over).Elem(), reflect.ValueOf(&out).Elem()
	for i := range ov.NumField() {
		if f := ov.Field(i); ov.Type().Field(i).IsExported() && !f.IsNil() {
			ev.Field(i).Set(f)
		}
	}
	if sc := over.SystemCritical; sc != nil && *sc && over.PriorityThreshold == nil {
		// As in an override: allowing system-critical pods drops the
		// inherited threshold instead of conflicting with it.
		out.PriorityThreshold = nil
	}
	return out
}

// validateOverlay reports what is wrong with a strategy's evictable as
// written; what it inherits was checked where it is set.
func (e *Evictable) validateOverlay(path *field.Path) field.ErrorList {
	if e == nil {
		return nil
	}
	var errs field.ErrorList
	own := *e
	if own.NamespaceSelector != nil {
		errs = append(errs, field.Forbidden(path.Child("namespaceSelector"),
			"chooses the namespaces rebalancer works in at all, for every strategy: set it in the global evictable; "+
				"a strategy keeps to some namespaces with its namespaces"))
		own.NamespaceSelector = nil
	}
	return append(errs, own.validate(path)...)
}

// validateEvictable reports the strategies' evictable settings that
// contradict the settings they overlay, base.
func (s *Strategies) validateEvictable(base *Evictable, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, n := range s.List() {
		over := n.Args.CommonArgs().Evictable
		if over == nil || over.PriorityThreshold == nil || over.SystemCritical != nil {
			continue
		}
		if base.SystemCritical != nil && *base.SystemCritical {
			errs = append(errs, field.Forbidden(path.Child(n.Name, "evictable", "priorityThreshold"),
				"has no effect when systemCritical is true, as the evictable settings this strategy overlays say: set systemCritical: false here too"))
		}
	}
	return errs
}

// MakesBeforeBreak reports whether any of the policy's evictable settings
// (global, a namespace's, a strategy's) turns makeBeforeBreak on: a run
// then reads HorizontalPodAutoscalers and needs the verbs of a surge.
func (p *Policy) MakesBeforeBreak() bool {
	for _, e := range p.Evictables() {
		if e.MakeBeforeBreak != nil && *e.MakeBeforeBreak {
			return true
		}
	}
	return false
}
