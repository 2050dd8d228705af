package policy

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Strategy names, as they appear under strategies: in a policy.
const (
	RemovePodsViolatingNodeTaints               = "RemovePodsViolatingNodeTaints"
	RemovePodsViolatingNodeAffinity             = "RemovePodsViolatingNodeAffinity"
	RemovePodsViolatingInterPodAntiAffinity     = "RemovePodsViolatingInterPodAntiAffinity"
	RemovePodsHavingTooManyRestarts             = "RemovePodsHavingTooManyRestarts"
	PodLifeTime                                 = "PodLifeTime"
	RemoveFailedPods                            = "RemoveFailedPods"
	RemoveDuplicates                            = "RemoveDuplicates"
	RemovePodsViolatingTopologySpreadConstraint = "RemovePodsViolatingTopologySpreadConstraint"
	LowNodeUtilization                          = "LowNodeUtilization"
	HighNodeUtilization                         = "HighNodeUtilization"
)

// Strategies holds the arguments of each configured strategy; a nil field is
// a strategy the policy does not mention.
type Strategies struct {
	RemovePodsViolatingNodeTaints               *RemovePodsViolatingNodeTaintsArgs               `json:"RemovePodsViolatingNodeTaints,omitempty"`
	RemovePodsViolatingNodeAffinity             *RemovePodsViolatingNodeAffinityArgs             `json:"RemovePodsViolatingNodeAffinity,omitempty"`
	RemovePodsViolatingInterPodAntiAffinity     *RemovePodsViolatingInterPodAntiAffinityArgs     `json:"RemovePodsViolatingInterPodAntiAffinity,omitempty"`
	RemovePodsHavingTooManyRestarts             *RemovePodsHavingTooManyRestartsArgs             `json:"RemovePodsHavingTooManyRestarts,omitempty"`
	PodLifeTime                                 *PodLifeTimeArgs                                 `json:"PodLifeTime,omitempty"`
	RemoveFailedPods                            *RemoveFailedPodsArgs                            `json:"RemoveFailedPods,omitempty"`
	RemoveDuplicates                            *RemoveDuplicatesArgs                            `json:"RemoveDuplicates,omitempty"`
	RemovePodsViolatingTopologySpreadConstraint *RemovePodsViolatingTopologySpreadConstraintArgs `json:"RemovePodsViolatingTopologySpreadConstraint,omitempty"`
	LowNodeUtilization                          *LowNodeUtilizationArgs                          `json:"LowNodeUtilization,omitempty"`
	HighNodeUtilization                         *HighNodeUtilizationArgs                         `json:"HighNodeUtilization,omitempty"`
}

// Order lists every strategy in the order they run: those that fix
// violations first, then those that balance, so that balancing works on the
// cluster as the fixes leave it. Among the balancing ones, the finer-grained
// go first (one workload's replicas, then its spread over domains) and the
// node-level ones last, so that they see every workload where it will stay.
var Order = []string{
	RemovePodsViolatingNodeTaints,
	RemovePodsViolatingNodeAffinity,
	RemovePodsViolatingInterPodAntiAffinity,
	RemovePodsHavingTooManyRestarts,
	PodLifeTime,
	RemoveFailedPods,
	RemoveDuplicates,
	RemovePodsViolatingTopologySpreadConstraint,
	LowNodeUtilization,
	HighNodeUtilization,
}

// accessors reads each strategy's field of Strategies.
var accessors = map[string]func(*Strategies) StrategyArgs{
	RemovePodsViolatingNodeTaints:               func(s *Strategies) StrategyArgs { return present(s.RemovePodsViolatingNodeTaints) },
	RemovePodsViolatingNodeAffinity:             func(s *Strategies) StrategyArgs { return present(s.RemovePodsViolatingNodeAffinity) },
	RemovePodsViolatingInterPodAntiAffinity:     func(s *Strategies) StrategyArgs { return present(s.RemovePodsViolatingInterPodAntiAffinity) },
	RemovePodsHavingTooManyRestarts:             func(s *Strategies) StrategyArgs { return present(s.RemovePodsHavingTooManyRestarts) },
	PodLifeTime:                                 func(s *Strategies) StrategyArgs { return present(s.PodLifeTime) },
	RemoveFailedPods:                            func(s *Strategies) StrategyArgs { return present(s.RemoveFailedPods) },
	RemoveDuplicates:                            func(s *Strategies) StrategyArgs { return present(s.RemoveDuplicates) },
	RemovePodsViolatingTopologySpreadConstraint: func(s *Strategies) StrategyArgs { return present(s.RemovePodsViolatingTopologySpreadConstraint) },
	LowNodeUtilization:                          func(s *Strategies) StrategyArgs { return present(s.LowNodeUtilization) },
	HighNodeUtilization:                         func(s *Strategies) StrategyArgs { return present(s.HighNodeUtilization) },
}

// present turns a nil argument pointer into a nil interface, which a typed
// nil pointer inside the interface would not be.
func present[T any, P interface {
	*T
	StrategyArgs
}](p P) StrategyArgs {
	if p == nil {
		return nil
	}
	return p
}

// Get returns the arguments of the named strategy, or nil when the policy
// does not mention it.
func (s *Strategies) Get(name string) StrategyArgs {
	if get, ok := accessors[name]; ok {
		return get(s)
	}
	return nil
}

// validateCombination rejects strategies that cannot share a policy.
// LowNodeUtilization fills the least used nodes and HighNodeUtilization
// empties them: each would undo the other's moves on the next run. An
// override cannot separate them by namespace either, since both classify
// nodes, which the pods of every namespace share; so the rule is on the
// global strategies, enabled or not, and overrides (which cannot add a
// node-level strategy) never change it.
func (s *Strategies) validateCombination(path *field.Path) field.ErrorList {
	if s.LowNodeUtilization != nil && s.HighNodeUtilization != nil {
		return field.ErrorList{field.Forbidden(path.Child(HighNodeUtilization),
			"cannot be configured together with LowNodeUtilization: LowNodeUtilization moves pods onto the least used nodes, "+
				"HighNodeUtilization empties those nodes, and each would undo the other on the next run; keep one")}
	}
	return nil
}

// Named is a strategy's name with its arguments.
type Named struct {
	Name string
	Args StrategyArgs
}

// List returns the strategies the policy mentions, in Order.
func (s *Strategies) List() []Named {
	var out []Named
	for _, name := range Order {
		if a := s.Get(name); a != nil {
			out = append(out, Named{name, a})
		}
	}
	return out
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

// Common holds the arguments every strategy accepts.
type Common struct {
	// Enabled turns the strategy off when false (default true).
	Enabled *bool `json:"enabled,omitempty"`
	// Namespaces limits the strategy to some namespaces.
	Namespaces *Namespaces `json:"namespaces,omitempty"`
	// LabelSelector limits the strategy to the pods it selects.
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`

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

func (c *Common) validate(path *field.Path) field.ErrorList {
	errs := validateNamespaces(c.Namespaces, path.Child("namespaces"))
	return append(errs, validateSelector(c.LabelSelector, path.Child("labelSelector"))...)
}

// compile parses the label selector.
func (c *Common) compile(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	c.selector, errs = compileSelector(c.LabelSelector, path.Child("labelSelector"))
	return errs
}
