package policy

import "k8s.io/apimachinery/pkg/util/validation/field"

// CheckPriorityClasses reports every evictable.priorityThreshold.name, global
// or in an override, that problem finds fault with, as an *Error with the
// field path; problem returns "" for a class it accepts. Loading cannot tell
// whether a class exists: only the cluster, or a dump of it, can. A class
// that does not exist must stop the run rather than fall back to another
// threshold, which would make evictable the very pods the policy protects.
func (p *Policy) CheckPriorityClasses(problem func(name string) string) error {
	var errs field.ErrorList
	check := func(ev Evictable, path *field.Path) {
		if t := ev.PriorityThreshold; t != nil && t.Value == nil && t.Name != "" {
			if why := problem(t.Name); why != "" {
				errs = append(errs, field.Invalid(path.Child("priorityThreshold", "name"), t.Name, why))
			}
		}
	}
	check(p.Evictable, field.NewPath("evictable"))
	for i := range p.Overrides {
		check(p.Overrides[i].Evictable, field.NewPath("overrides").Index(i).Child("evictable"))
	}
	if len(errs) == 0 {
		return nil
	}
	return newError(p.File, errs)
}

// PriorityClassNames returns the classes the policy names as thresholds, in
// the order of the file, each once.
func (p *Policy) PriorityClassNames() []string {
	var names []string
	add := func(ev Evictable) {
		if t := ev.PriorityThreshold; t != nil && t.Value == nil && t.Name != "" && !contains(names, t.Name) {
			names = append(names, t.Name)
		}
	}
	add(p.Evictable)
	for i := range p.Overrides {
		add(p.Overrides[i].Evictable)
	}
	return names
}
