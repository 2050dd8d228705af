package policy

import (
	"fmt"
	"slices"
	"sync"
)

// The strategies a policy may configure, in the order they run, with
// their arguments and their descheduler plugins. Package strategies
// registers the built-in ones from its table; a program that builds on
// rebalancer registers its own before it loads a policy.
var registry struct {
	sync.RWMutex
	names   []string
	newArgs map[string]func() StrategyArgs
}

// RegisterStrategy lets policies configure the named strategy, with
// arguments decoded into the value newArgs returns (a pointer to a zero
// value). The strategy runs after every strategy registered before it.
// With a descheduler plugin, policies written for the descheduler may
// configure it under its name too.
func RegisterStrategy(name string, newArgs func() StrategyArgs, descheduler *DeschedulerPlugin) error {
	if name == "" || newArgs == nil {
		return fmt.Errorf("registering a strategy needs a name and an arguments constructor")
	}
	registry.Lock()
	defer registry.Unlock()
	if _, ok := registry.newArgs[name]; ok {
		return fmt.Errorf("strategy %s is registered twice", name)
	}
	if registry.newArgs == nil {
		registry.newArgs = make(map[string]func() StrategyArgs)
	}
	registry.names = append(registry.names, name)
	registry.newArgs[name] = newArgs
	if descheduler != nil {
		addDeschedulerPlugin(name, descheduler)
	}
	return nil
}

// Order returns the name of every registered strategy, in the order they
// run.
func Order() []string {
	registry.RLock()
	defer registry.RUnlock()
	return slices.Clone(registry.names)
}

// NewArgs returns zero arguments of the named strategy, or nil when no
// strategy of that name is registered.
func NewArgs(name string) StrategyArgs {
	if newArgs := registeredArgs(name); newArgs != nil {
		return newArgs()
	}
	return nil
}

func registeredArgs(name string) func() StrategyArgs {
	registry.RLock()
	defer registry.RUnlock()
	return registry.newArgs[name]
}
