package framework

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
	// Descheduler, when set, maps the descheduler's plugin of the same
	// name onto the strategy, so that policies written for the descheduler
	// may configure it.
	Descheduler *policy.DeschedulerPlugin
}

// registered holds every registered strategy by name.
var registered struct {
	sync.RWMutex
	byName map[string]Registration
}

// Register adds a strategy to those a policy may configure and the planner
// runs, after every strategy registered before it (the built-in ones
// first, see package strategies). A program registers its own strategies
// before it loads a policy.
func Register(r Registration) error {
	if r.New == nil || r.NewArgs == nil {
		return fmt.Errorf("strategy %q: a registration needs New and NewArgs", r.Name)
	}
	if got := r.New().Name(); got != r.Name {
		return fmt.Errorf("strategy %q: its Name is %q", r.Name, got)
	}
	registered.Lock()
	defer registered.Unlock()
	if err := policy.RegisterStrategy(r.Name, r.NewArgs, r.Descheduler); err != nil {
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
