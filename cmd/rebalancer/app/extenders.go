package app

import (
	"github.com/kube-rebalancer/rebalancer/extenderclient"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
)

// callExtenders makes the engine call the extenders of its profile over
// HTTP, and returns the function that binds through the extender with a
// bindVerb (nil when none binds: the Binding API does).
func callExtenders(e *engine.Engine) (extenderclient.BindFunc, error) {
	cfgs := e.Profile().Extenders
	if len(cfgs) == 0 {
		return nil, nil
	}
	cs, err := extenderclient.NewAll(cfgs)
	if err != nil {
		return nil, err
	}
	e.SetExtenders(extenderclient.Extenders(cs))
	return extenderclient.Binder(cs), nil
}
