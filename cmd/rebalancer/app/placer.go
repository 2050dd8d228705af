package app

import (
	"fmt"
	"path/filepath"

	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// newPlacer builds the scheduler engines a plan simulates: the profiles of
// the policy's scheduler section, each for the pods that name it, and
// kube-scheduler's default profile for every other pod. plugins are the
// out-of-tree plugins the profiles may enable.
func newPlacer(pol *policy.Policy, plugins framework.Registry) (engine.Placer, error) {
	def, err := engine.New(profile.DefaultProfile(), plugins)
	if err != nil {
		return nil, err
	}
	placer := &engine.ByName{Engines: map[string]*engine.Engine{}, Default: def}
	s := pol.Scheduler
	if s == nil {
		return placer, nil
	}
	var profiles []profile.Profile
	switch {
	case s.ConfigFile != "":
		file := s.ConfigFile
		if !filepath.IsAbs(file) && pol.File != "" {
			file = filepath.Join(filepath.Dir(pol.File), file)
		}
		if profiles, err = profile.ReadProfiles(file, plugins); err != nil {
			// The file is the policy's field: say which, as for any other.
			return nil, fmt.Errorf("%s: scheduler.configFile: %w", pol.File, err)
		}
	case len(s.Config) > 0:
		profiles, err = profile.LoadProfiles(s.Config, pol.File+": scheduler.config", plugins)
	}
	if err != nil {
		return nil, err
	}
	for _, p := range profiles {
		e, err := engine.New(p, plugins)
		if err != nil {
			return nil, err
		}
		if s.CallExtenders {
			if _, err := callExtenders(e); err != nil {
				return nil, err
			}
		}
		placer.Engines[p.SchedulerName] = e
	}
	if s.SchedulerName == "" {
		return placer, nil
	}
	if e, ok := placer.Engines[s.SchedulerName]; ok {
		return e, nil
	}
	if s.SchedulerName == profile.DefaultSchedulerName {
		return def, nil
	}
	return nil, fmt.Errorf("%s: scheduler.schedulerName: %q is not a profile of the scheduler configuration", pol.File, s.SchedulerName)
}
