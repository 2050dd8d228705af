package nodeutilization

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube-rebalancer/rebalancer/policy"
)

// NodePool is a set of nodes, chosen by their labels, that a utilization
// strategy balances on its own, with thresholds of its own: pods move only
// between nodes of one pool. A node belongs to the first pool that selects
// it.
type NodePool struct {
	// Name identifies the pool in messages and reasons.
	Name string `json:"name"`
	// NodeSelector chooses the pool's nodes by their labels.
	NodeSelector *metav1.LabelSelector `json:"nodeSelector"`
}

// Selector returns the pool's parsed node selector. A loaded policy's pools
// always parse; one that does not selects no node.
func (p *NodePool) Selector() labels.Selector {
	if p.NodeSelector == nil {
		return labels.Nothing()
	}
	sel, err := metav1.LabelSelectorAsSelector(p.NodeSelector)
	if err != nil {
		return labels.Nothing()
	}
	return sel
}

// PoolsOf returns the NodePool of each of a strategy's pool entries, which
// add their own thresholds to it.
func PoolsOf[T any](entries []T, pool func(*T) *NodePool) []*NodePool {
	out := make([]*NodePool, len(entries))
	for i := range entries {
		out[i] = pool(&entries[i])
	}
	return out
}

// ValidatePool checks the name and selector of pools[i], and that it is
// not bound to share nodes with an earlier pool. Whether two pools share a
// node usually depends on the nodes' labels, which the policy cannot see;
// it is known from the policy alone when one selector implies the other
// (every node one selects, the other selects too), and only that case is
// an error. Otherwise a node that matches two pools belongs to the first.
func ValidatePool(pools []*NodePool, i int, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	p := pools[i]
	if p.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), "a name for the pool, e.g. gpu"))
	} else {
		for _, msg := range validation.IsDNS1123Label(p.Name) {
			errs = append(errs, field.Invalid(path.Child("name"), p.Name, "is not a valid pool name: "+msg))
		}
		for j := range i {
			if pools[j].Name == p.Name {
				errs = append(errs, field.Duplicate(path.Child("name"), p.Name))
				break
			}
		}
	}
	sp := path.Child("nodeSelector")
	if p.NodeSelector == nil {
		return append(errs, field.Required(sp, "the labels of the pool's nodes, e.g. {matchLabels: {pool: gpu}}"))
	}
	if serrs := policy.ValidateSelector(p.NodeSelector, sp); len(serrs) > 0 {
		return append(errs, serrs...)
	}
	a := selectorConstraints(p.NodeSelector)
	if key, ok := a.contradiction(); ok {
		return append(errs, field.Invalid(sp, p.NodeSelector, fmt.Sprintf("selects no node: its requirements on %q contradict each other", key)))
	}
	for j := range i {
		q := pools[j]
		if q.NodeSelector == nil || len(policy.ValidateSelector(q.NodeSelector, sp)) > 0 {
			continue
		}
		b := selectorConstraints(q.NodeSelector)
		if _, empty := b.contradiction(); empty {
			continue
		}
		switch {
		case a.implies(q.NodeSelector):
			return append(errs, field.Invalid(sp, p.NodeSelector, fmt.Sprintf(
				"selects only nodes that nodePools[%d] (%s) selects too: a node belongs to one pool only", j, q.Name)))
		case b.implies(p.NodeSelector):
			return append(errs, field.Invalid(sp, p.NodeSelector, fmt.Sprintf(
				"selects every node that nodePools[%d] (%s) selects: a node belongs to one pool only", j, q.Name)))
		}
	}
	return errs
}

// keyConstraint is what a selector requires of one label key.
type keyConstraint struct {
	present bool
	absent  bool
	// in, when not nil, lists the only values allowed.
	in    []string
	notIn []string
}

// selectorLogic is a selector as constraints per label key; keys are
// independent, which makes implication decidable key by key.
type selectorLogic map[string]*keyConstraint

func selectorConstraints(s *metav1.LabelSelector) selectorLogic {
	l := selectorLogic{}
	get := func(k string) *keyConstraint {
		if l[k] == nil {
			l[k] = &keyConstraint{}
		}
		return l[k]
	}
	restrict := func(c *keyConstraint, values []string) {
		c.present = true
		if c.in == nil {
			c.in = slices.Clone(values)
			if c.in == nil {
				c.in = []string{}
			}
			return
		}
		c.in = slices.DeleteFunc(c.in, func(v string) bool { return !slices.Contains(values, v) })
	}
	for k, v := range s.MatchLabels {
		restrict(get(k), []string{v})
	}
	for _, r := range s.MatchExpressions {
		c := get(r.Key)
		switch r.Operator {
		case metav1.LabelSelectorOpIn:
			restrict(c, r.Values)
		case metav1.LabelSelectorOpNotIn:
			c.notIn = append(c.notIn, r.Values...)
		case metav1.LabelSelectorOpExists:
			c.present = true
		case metav1.LabelSelectorOpDoesNotExist:
			c.absent = true
		}
	}
	return l
}

// allowed returns the values the constraint allows, or nil when any value
// not in notIn is allowed.
func (c *keyConstraint) allowed() []string {
	if c.in == nil {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(c.in), func(v string) bool { return slices.Contains(c.notIn, v) })
}

// contradiction returns a key whose requirements no label set meets.
func (l selectorLogic) contradiction() (string, bool) {
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		c := l[k]
		if c.absent && c.present {
			return k, true
		}
		if c.in != nil && len(c.allowed()) == 0 {
			return k, true
		}
	}
	return "", false
}

// implies reports whether every label set l admits is selected by s.
func (l selectorLogic) implies(s *metav1.LabelSelector) bool {
	for _, r := range selectorRequirements(s) {
		c := l[r.Key]
		if c == nil {
			c = &keyConstraint{}
		}
		var ok bool
		switch r.Operator {
		case metav1.LabelSelectorOpExists:
			ok = c.present
		case metav1.LabelSelectorOpDoesNotExist:
			ok = c.absent
		case metav1.LabelSelectorOpIn:
			allowed := c.allowed()
			ok = c.in != nil && !slices.ContainsFunc(allowed, func(v string) bool { return !slices.Contains(r.Values, v) })
		case metav1.LabelSelectorOpNotIn:
			switch {
			case c.absent:
				ok = true
			case c.in != nil:
				ok = !slices.ContainsFunc(c.allowed(), func(v string) bool { return slices.Contains(r.Values, v) })
			default:
				ok = !slices.ContainsFunc(r.Values, func(v string) bool { return !slices.Contains(c.notIn, v) })
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// selectorRequirements lists a selector's matchLabels as In requirements
// followed by its matchExpressions.
func selectorRequirements(s *metav1.LabelSelector) []metav1.LabelSelectorRequirement {
	out := make([]metav1.LabelSelectorRequirement, 0, len(s.MatchLabels)+len(s.MatchExpressions))
	for k, v := range s.MatchLabels {
		out = append(out, metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpIn, Values: []string{v}})
	}
	return append(out, s.MatchExpressions...)
}
