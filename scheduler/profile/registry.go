package profile

import (
	"errors"
	"fmt"

	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/utils/ptr"

	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins"
)

// MergeRegistries merges the in-tree plugins with out-of-tree registries;
// a name registered twice is an error.
func MergeRegistries(outOfTree []framework.Registry) (framework.Registry, error) {
	reg := make(framework.Registry, len(plugins.InTree))
	for _, p := range plugins.InTree {
		reg[p.Name] = p.Registration
	}
	for _, r := range outOfTree {
		for name, x := range r {
			if _, dup := reg[name]; dup {
				return nil, fmt.Errorf("plugin %q is registered twice", name)
			}
			if x.New == nil {
				return nil, fmt.Errorf("plugin %q: registration without New", name)
			}
			reg[name] = x
		}
	}
	return reg, nil
}

// defaultMultiPoint is kube-scheduler 1.36's default profile, from
// plugins.InTree.
func defaultMultiPoint() []configv1.Plugin {
	var out []configv1.Plugin
	for _, p := range plugins.InTree {
		if !p.InDefault {
			continue
		}
		pl := configv1.Plugin{Name: p.Name}
		if p.Weight != 0 {
			pl.Weight = ptr.To(p.Weight)
		}
		out = append(out, pl)
	}
	return out
}

// PluginArgs decodes, defaults and validates the args of plugin name from
// raw (nil: none given); path names the args in the file.
func PluginArgs(r framework.Registry, name string, raw []byte, path string) (any, error) {
	x := r[name]
	if x.Args == nil {
		return raw, nil
	}
	a, err := x.Args(raw, path)
	if errors.Is(err, framework.ErrNoArgs) {
		return nil, fmt.Errorf("%s: plugin %q takes no arguments", path, name)
	}
	return a, err
}
