package policy

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Settings are what applies to the pods of one namespace: the global
// settings, overlaid by the override that matches the namespace.
type Settings struct {
	Evictable Evictable
	// PerNamespaceLimit bounds the evictions in each namespace these settings
	// apply to in one step; nil is no limit. PerNamespaceField names the
	// field that set it, for messages.
	PerNamespaceLimit *int32
	PerNamespaceField string
	// PerRunNamespaceLimit bounds them over a whole run.
	PerRunNamespaceLimit *int32
	Strategies           Strategies

	// byStrategy holds the evictable settings of each strategy that
	// overlays its own (see EvictableFor).
	byStrategy map[string]*Evictable
}

// Args returns the arguments of a strategy for these pods, or nil when the
// strategy is absent or disabled here.
func (s *Settings) Args(name string) StrategyArgs {
	a := s.Strategies.Get(name)
	if a == nil || !a.CommonArgs().IsEnabled() {
		return nil
	}
	return a
}

// settings returns the global settings as the document states them.
func (p *RebalancePolicy) settings() Settings {
	var st Strategies
	// A deep copy: the overrides overlay this and must not share its maps.
	mustOverlay(p.Strategies, nil, &st)
	ev := p.Evictable
	s := Settings{Evictable: ev, Strategies: st}
	s.PerNamespaceLimit, s.PerNamespaceField, s.PerRunNamespaceLimit = namespaceLimits(&p.Limits)
	return s
}

// namespaceLimits returns the namespace bounds of limits: per step, with
// the field that sets it, and per run.
func namespaceLimits(l *Limits) (step *int32, stepField string, run *int32) {
	step, stepField = l.PerNamespace, "limits.perNamespace"
	if b := l.PerStep; b != nil && b.Namespace != nil {
		step, stepField = b.Namespace, "limits.perStep.namespace"
	}
	if b := l.PerRun; b != nil {
		run = b.Namespace
	}
	return step, stepField, run
}

// compile parses the selectors of the settings.
func (s *Settings) compile(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	s.Evictable.selector, errs = compileSelector(s.Evictable.LabelSelector, path.Child("evictable", "labelSelector"))
	var nsErrs field.ErrorList
	s.Evictable.namespaceSelector, nsErrs = compileSelector(s.Evictable.NamespaceSelector, path.Child("evictable", "namespaceSelector"))
	errs = append(errs, nsErrs...)
	for _, n := range s.Strategies.List() {
		errs = append(errs, n.Args.CommonArgs().compile(path.Child("strategies", n.Name))...)
	}
	return append(errs, s.resolveStrategies(path)...)
}

// defaults fills in the unset protections.
func (e *Evictable) defaults() {
	if e.SystemCritical == nil {
		e.SystemCritical = new(false)
	}
	if e.LocalStorage == nil {
		e.LocalStorage = new(false)
	}
	if e.PVC == nil {
		e.PVC = new(true)
	}
	if e.BarePods == nil {
		e.BarePods = new(false)
	}
	if e.JobPods == nil {
		e.JobPods = new(false)
	}
	if e.DoNotDisruptPods == nil {
		e.DoNotDisruptPods = new(false)
	}
	if e.ResourceClaims == nil {
		e.ResourceClaims = new(false)
	}
	if e.MinReplicas == nil {
		e.MinReplicas = new(int32(0))
	}
	if e.RequirePDB == nil {
		e.RequirePDB = new(false)
	}
	if e.MakeBeforeBreak == nil {
		e.MakeBeforeBreak = new(false)
	}
	if e.MinPodAge == nil {
		e.MinPodAge = &metav1.Duration{}
	}
}

// resolveOverride validates an override and computes the settings of the
// namespaces it matches, from the global settings as written.
func resolveOverride(o *Override, written Settings, path *field.Path) (override, field.ErrorList) {
	var errs field.ErrorList
	switch {
	case len(o.Namespaces) > 0 && o.NamespaceSelector != nil:
		errs = append(errs, field.Forbidden(path, "set namespaces or namespaceSelector, not both"))
	case len(o.Namespaces) == 0 && o.NamespaceSelector == nil:
		errs = append(errs, field.Required(path.Child("namespaces"), "an override applies to namespaces by name or by namespaceSelector"))
	}
	errs = append(errs, validateNamespaceNames(o.Namespaces, path.Child("namespaces"))...)
	errs = append(errs, ValidateSelector(o.NamespaceSelector, path.Child("namespaceSelector"))...)
	sel, selErrs := compileSelector(o.NamespaceSelector, path.Child("namespaceSelector"))
	if len(errs) == 0 {
		errs = selErrs
	}
	if o.Evictable.NamespaceSelector != nil {
		errs = append(errs, field.Forbidden(path.Child("evictable", "namespaceSelector"),
			"an override applies to the namespaces its namespaces or namespaceSelector chooses: narrow those, or set evictable.namespaceSelector globally"))
	}
	errs = append(errs, o.Limits.validate(path.Child("limits"))...)
	errs = append(errs, nodeLevelErrors(o.Strategies, written.Strategies, path.Child("strategies"))...)

	s := Settings{PerNamespaceLimit: written.PerNamespaceLimit, PerNamespaceField: written.PerNamespaceField, PerRunNamespaceLimit: written.PerRunNamespaceLimit}
	switch {
	case o.Limits.PerStep != nil && o.Limits.PerStep.Namespace != nil:
		s.PerNamespaceLimit, s.PerNamespaceField = o.Limits.PerStep.Namespace, "limits.perStep.namespace"
	case o.Limits.PerNamespace != nil:
		s.PerNamespaceLimit, s.PerNamespaceField = o.Limits.PerNamespace, "limits.perNamespace"
	}
	if o.Limits.PerRun != nil && o.Limits.PerRun.Namespace != nil {
		s.PerRunNamespaceLimit = o.Limits.PerRun.Namespace
	}
	mustOverlay(written.Evictable, o.Evictable, &s.Evictable)
	if sc := o.Evictable.SystemCritical; sc != nil && *sc && o.Evictable.PriorityThreshold == nil {
		// Allowing system-critical pods here drops the inherited threshold
		// instead of conflicting with it.
		s.Evictable.PriorityThreshold = nil
	}
	mustOverlay(written.Strategies, o.Strategies, &s.Strategies)
	s.Evictable.defaults()
	for _, n := range s.Strategies.List() {
		n.Args.Default()
	}
	merged := s.Evictable.validate(path.Child("evictable"))
	merged = append(merged, s.Strategies.validate(path.Child("strategies"))...)
	merged = append(merged, s.Strategies.validateEvictable(&s.Evictable, path.Child("strategies"))...)
	// A strategy the override may not configure was reported above; what
	// it lacks would only repeat that.
	for _, n := range o.Strategies.List() {
		if len(n.Args.NodeLevelFields()) > 0 && written.Strategies.Get(n.Name) == nil {
			merged = withoutPath(merged, path.Child("strategies", n.Name))
		}
	}
	cerrs := s.compile(path)
	if len(errs) == 0 && len(merged) == 0 {
		merged = cerrs
	}
	return override{names: o.Namespaces, selector: sel, settings: s}, append(errs, merged...)
}

// nodeLevelErrors rejects node-level arguments in an override, and
// strategies with node-level arguments that only an override configures.
func nodeLevelErrors(over, global Strategies, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, n := range over.List() {
		nodeLevel := n.Args.NodeLevelFields()
		if len(nodeLevel) == 0 {
			continue
		}
		if global.Get(n.Name) == nil {
			errs = append(errs, field.Forbidden(path.Child(n.Name),
				fmt.Sprintf("%s classifies nodes, which the pods of every namespace share: configure it globally; an override can only turn it off or set its pod-level arguments", n.Name)))
			continue
		}
		set := asMap(n.Args)
		for _, f := range nodeLevel {
			if _, ok := set[f]; ok {
				errs = append(errs, field.Forbidden(path.Child(n.Name, f),
					"is a node-level setting, shared by the pods of every namespace: set it globally, not in an override"))
			}
		}
	}
	return errs
}

// mustOverlay sets out to base with the fields set in over laid on top:
// objects merge key by key, anything else (lists included) is replaced. It
// works on the JSON form, where an unset field is an absent key. Both inputs
// are values of this package's types, which always marshal.
func mustOverlay(base, over, out any) {
	merged := merge(asMap(base), asMap(over))
	b, err := json.Marshal(merged)
	if err == nil {
		err = json.Unmarshal(b, out)
	}
	if err != nil {
		panic(fmt.Sprintf("policy overlay: %v", err))
	}
}

func asMap(v any) map[string]any {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("policy overlay: %v", err))
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(fmt.Sprintf("policy overlay: %v", err))
	}
	return m
}

func merge(base, over map[string]any) map[string]any {
	out := maps.Clone(base)
	if out == nil {
		out = make(map[string]any, len(over))
	}
	for k, v := range over {
		if om, ok := v.(map[string]any); ok {
			if bm, ok := out[k].(map[string]any); ok {
				out[k] = merge(bm, om)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// withoutPath drops the errors at or under path.
func withoutPath(errs field.ErrorList, path *field.Path) field.ErrorList {
	p := path.String()
	var out field.ErrorList
	for _, e := range errs {
		if e.Field != p && !strings.HasPrefix(e.Field, p+".") {
			out = append(out, e)
		}
	}
	return out
}
