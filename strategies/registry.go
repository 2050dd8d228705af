package strategies

import (
	"fmt"
	"sync"

	"github.com/kube-rebalancer/rebalancer/policy"
)

// Registration is one row of the strategy table: everything rebalancer
// needs to know to configure, validate and run a strategy.
type Registration struct {
	// Name is the strategy's key under strategies: in a policy; New's
	// strategy returns it from Name.
	Name string
	// NewArgs returns a pointer to zero arguments, which the policy
	// decodes the strategy's key into, then defaults and validates.
	NewArgs func() policy.StrategyArgs
	// New returns the strategy.
	New func() Strategy
}

// builtin lists rebalancer's strategies in the order they run: those that
// fix violations first, then those that balance, so that balancing works
// on the cluster as the fixes leave it. Among the balancing ones, the
// finer-grained go first (one workload's replicas, then its spread over
// domains) and the node-level ones last, so that they see every workload
// where it will stay. A strategy that needs a guard rule implements
// guardRuler.
var builtin = []Registration{
	{nodeTaintsName, args[policy.RemovePodsViolatingNodeTaintsArgs], strategy[nodeTaints]},
	{nodeAffinityName, args[policy.RemovePodsViolatingNodeAffinityArgs], strategy[nodeAffinity]},
	{interPodAntiAffinityName, args[policy.RemovePodsViolatingInterPodAntiAffinityArgs], strategy[interPodAntiAffinity]},
	{tooManyRestartsName, args[policy.RemovePodsHavingTooManyRestartsArgs], strategy[tooManyRestarts]},
	{podLifeTimeName, args[policy.PodLifeTimeArgs], strategy[podLifeTime]},
	{failedPodsName, args[policy.RemoveFailedPodsArgs], strategy[failedPods]},
	{removeDuplicatesName, args[policy.RemoveDuplicatesArgs], strategy[removeDuplicates]},
	{topologySpreadName, args[policy.RemovePodsViolatingTopologySpreadConstraintArgs], strategy[topologySpread]},
	{lowNodeUtilizationName, args[policy.LowNodeUtilizationArgs], strategy[lowNodeUtilization]},
	{highNodeUtilizationName, args[policy.HighNodeUtilizationArgs], strategy[highNodeUtilization]},
}

// args is the NewArgs of a table row: a pointer to a zero T.
func args[T any, P interface {
	*T
	policy.StrategyArgs
}]() policy.StrategyArgs {
	return P(new(T))
}

// strategy is the New of a table row whose strategy is a zero S.
func strategy[S Strategy]() Strategy {
	var s S
	return s
}

// registered holds every registered strategy by name.
var registered struct {
	sync.RWMutex
	byName map[string]Registration
}

// The built-in strategies are registered once, here, so that any program
// that runs strategies can also load the policies that configure them.
func init() {
	for _, r := range builtin {
		if err := Register(r); err != nil {
			panic(err)
		}
	}
}

// Register adds a strategy to those a policy may configure and the planner
// runs, after every strategy registered before it (the built-in ones
// first). A program registers its own strategies before it loads a policy.
func Register(r Registration) error {
	if r.New == nil || r.NewArgs == nil {
		return fmt.Errorf("strategy %q: a registration needs New and NewArgs", r.Name)
	}
	if got := r.New().Name(); got != r.Name {
		return fmt.Errorf("strategy %q: its Name is %q", r.Name, got)
	}
	registered.Lock()
	defer registered.Unlock()
	if err := policy.RegisterStrategy(r.Name, r.NewArgs); err != nil {
		return err
	}
	if registered.byName == nil {
		registered.byName = make(map[string]Registration)
	}
	registered.byName[r.Name] = r
	return nil
}

// Get returns the strategy of that name, or nil.
func Get(name string) Strategy {
	registered.RLock()
	defer registered.RUnlock()
	if r, ok := registered.byName[name]; ok {
		return r.New()
	}
	return nil
}
