package policy

import (
	"encoding/json"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Strategies holds the arguments of each strategy a policy configures,
// by name; a strategy the policy does not mention has none. The names a
// policy may use are those registered with RegisterStrategy.
type Strategies struct {
	args map[string]StrategyArgs
	// decoding keeps what UnmarshalJSON found wrong, so that Load reports
	// it under the path where these strategies sit in the document.
	decoding decodeProblems
}

// Get returns the arguments of the named strategy, or nil when the policy
// does not mention it.
func (s *Strategies) Get(name string) StrategyArgs { return s.args[name] }

// Named is a strategy's name with its arguments.
type Named struct {
	Name string
	Args StrategyArgs
}

// List returns the strategies the policy mentions, in Order.
func (s *Strategies) List() []Named {
	var out []Named
	for _, name := range Order() {
		if a := s.Get(name); a != nil {
			out = append(out, Named{name, a})
		}
	}
	return out
}

// MarshalJSON writes the strategies in Order, the order users read them in.
func (s Strategies) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range s.List() {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(n.Name)
		args, err := json.Marshal(n.Args)
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(args)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// UnmarshalJSON decodes each strategy's arguments into the type its
// registration gives, as strictly as the rest of the document. Unknown
// names and fields and values of the wrong type do not stop decoding: Load
// reports them, with the other problems of the document.
func (s *Strategies) UnmarshalJSON(data []byte) error {
	*s = Strategies{}
	if string(data) == "null" {
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		s.decoding.types = append(s.decoding.types, typeProblem{msg: article(jsonKind(data)) + " where an object is expected"})
		return nil
	}
	names := make([]string, 0, len(raw))
	for name := range raw {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		newArgs := registeredArgs(name)
		if newArgs == nil {
			s.decoding.strict = append(s.decoding.strict, &unknownStrategyError{name})
			continue
		}
		a := newArgs()
		strict, types, err := decodeAll(raw[name], a)
		for _, p := range types {
			s.decoding.types = append(s.decoding.types, p.under(name))
		}
		if err != nil {
			s.decoding.types = append(s.decoding.types, typeProblem{name, describeTypeError(err.Error())})
		}
		if err != nil || (len(types) > 0 && types[0].path == "") {
			continue // not an object: no arguments to validate
		}
		for _, e := range strict {
			if fe, ok := e.(interface{ SetFieldPath(string) }); ok {
				fe.SetFieldPath(name + "." + e.(interface{ FieldPath() string }).FieldPath())
			}
			s.decoding.strict = append(s.decoding.strict, e)
		}
		if s.args == nil {
			s.args = make(map[string]StrategyArgs)
		}
		s.args[name] = a
	}
	return nil
}

// Conflicting is implemented by the arguments of a strategy that cannot
// share a policy with another one.
type Conflicting interface {
	// ConflictsWith names the other strategy and says why both cannot be
	// configured together.
	ConflictsWith() (strategy, why string)
}

// validateCombination rejects strategies that cannot share a policy. The
// rule is on the global strategies, enabled or not: two strategies that
// undo each other do so whatever namespaces they select, and overrides
// (which cannot add a node-level strategy) never change it.
func (s *Strategies) validateCombination(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, n := range s.List() {
		c, ok := n.Args.(Conflicting)
		if !ok {
			continue
		}
		if other, why := c.ConflictsWith(); s.Get(other) != nil {
			errs = append(errs, field.Forbidden(path.Child(n.Name), "cannot be configured together with "+other+": "+why))
		}
	}
	return errs
}

// StrategyArgs is implemented by the arguments of every strategy.
type StrategyArgs interface {
	// CommonArgs returns the arguments every strategy accepts.
	CommonArgs() *Common
	// Default fills in unset arguments.
	Default()
	// Validate reports every invalid argument, under path.
	Validate(path *field.Path) field.ErrorList
	// NodeLevelFields names the arguments that describe nodes rather than
	// pods. They cannot be tuned per namespace, because a node is shared by
	// the pods of many namespaces.
	NodeLevelFields() []string
}

// UtilizationThresholds is implemented by the arguments of a strategy that
// classifies nodes by their utilization: the node report shows the
// resources it has thresholds for.
type UtilizationThresholds interface {
	// UtilizationThresholds returns every set of thresholds that classifies
	// nodes as under-utilized, those of the node pools included.
	UtilizationThresholds() []ResourceThresholds
}

// Common holds the arguments every strategy accepts.
type Common struct {
	// Enabled turns the strategy off when false (default true).
	Enabled *bool `json:"enabled,omitempty"`
	// Namespaces limits the strategy to some namespaces.
	Namespaces *Namespaces `json:"namespaces,omitempty"`
	// LabelSelector limits the strategy to the pods it selects.
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
	// Evictable overlays the evictable settings of the pods this strategy
	// moves: each field it sets replaces the one the namespace's settings
	// give (see EvictableFor), so that a pod one strategy must leave may be
	// moved by another.
	Evictable *Evictable `json:"evictable,omitempty"`

	selector labels.Selector
}

// CommonArgs returns c.
func (c *Common) CommonArgs() *Common { return c }

// IsEnabled reports whether the strategy runs.
func (c *Common) IsEnabled() bool { return c.Enabled == nil || *c.Enabled }

// Selects reports whether the strategy applies to a pod of the namespace with
// the given labels.
func (c *Common) Selects(namespace string, podLabels map[string]string) bool {
	if !c.Namespaces.Allows(namespace) {
		return false
	}
	return c.selector == nil || c.selector.Matches(labels.Set(podLabels))
}

// Validate reports every invalid common argument under path. A strategy's
// own Validate starts from it, in this repository or outside it.
func (c *Common) Validate(path *field.Path) field.ErrorList {
	errs := ValidateNamespaces(c.Namespaces, path.Child("namespaces"))
	errs = append(errs, ValidateSelector(c.LabelSelector, path.Child("labelSelector"))...)
	return append(errs, c.Evictable.validateOverlay(path.Child("evictable"))...)
}

// compile parses the label selector.
func (c *Common) compile(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	c.selector, errs = compileSelector(c.LabelSelector, path.Child("labelSelector"))
	return errs
}
