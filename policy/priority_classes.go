package policy

import "k8s.io/apimachinery/pkg/util/validation/field"

// CheckPriorityClasses reports every evictable.priorityThreshold.name, global,
// in an override or in a strategy's arguments, that problem finds fault with, as an *Error with the
// field path; problem returns "" for a class it accepts. Loading cannot tell
// whether a class exists: only the cluster, or a dump of it, can. A class
// that does not exist must stop the run rather than fall back to another
// threshold, which would make evictable the very pods the policy protects.
func (p *Policy) CheckPriorityClasses(problem func(name string) string) error {
	var errs field.ErrorList
	p.eachEvictable(func(ev *Evictable, path *field.Path) {
		if t := ev.PriorityThreshold; t != nil && t.Value == nil && t.Name != "" {
			if why := problem(t.Name); why != "" {
				errs = append(errs, field.Invalid(path.Child("priorityThreshold", "name"), t.Name, why))
			}
		}
	})
	if len(errs) == 0 {
		return nil
	}
	return newError(p.File, errs)
}

// PriorityClassNames returns the classes the policy names as thresholds, in
// the order of the file, each once.
func (p *Policy) PriorityClassNames() []string {
	var names []string
	p.eachEvictable(func(ev *Evictable, _ *field.Path) {
		if t := ev.PriorityThreshold; t != nil && t.Value == nil && t.Name != "" && !contains(names, t.Name) {
			names = append(names, t.Name)
		}
	})
	return names
}

// eachEvictable calls f with every evictable the document sets, in the
// order of the file, and its path: the global one, each strategy's, and
// the same in each override.
func (p *Policy) eachEvictable(f func(ev *Evictable, path *field.Path)) {
	strategies := func(st *Strategies, path *field.Path) {
		for _, n := range st.List() {
			if ev := n.Args.CommonArgs().Evictable; ev != nil {
				f(ev, path.Child(n.Name, "evictable"))
			}
		}
	}
	f(&p.Evictable, field.NewPath("evictable"))
	strategies(&p.Strategies, field.NewPath("strategies"))
	for i := range p.Overrides {
		o := &p.Overrides[i]
		path := field.NewPath("overrides").Index(i)
		f(&o.Evictable, path.Child("evictable"))
		strategies(&o.Strategies, path.Child("strategies"))
	}
}
